/* line_info in the verifier log and in the diagnostics */
#define SEC(n) __attribute__((section(n), used))
#define __noinline __attribute__((noinline))
typedef unsigned int __u32;
typedef unsigned long long __u64;
struct __sk_buff {
	__u32 len;
	__u32 pkt_type;
	__u32 mark;
};
static long (*bpf_get_prandom_u32)(void) = (void *)7;

SEC("socket") int scalar_deref(void *ctx) { return *(volatile int *)(long)bpf_get_prandom_u32(); }

SEC("socket")
int indented(struct __sk_buff *skb)
{
	__u32 v = bpf_get_prandom_u32();

	if (v > 10)
		v = 10;
        v += skb->len;
	return *(volatile int *)(long)v;
}

static __noinline int helper_sub(int x)
{
	if (x > 3)
		return *(volatile int *)(long)x;
	return x + 1;
}

SEC("socket")
int in_subprog(struct __sk_buff *skb)
{
	int r = bpf_get_prandom_u32() & 7;

	r = helper_sub(r);
	return r;
}

SEC("socket")
int loop_ok(struct __sk_buff *skb)
{
	int i, s = 0;

	for (i = 0; i < 4; i++)
		s += bpf_get_prandom_u32() & 1;
	if (s > 2)
		return skb->mark;
	return s;
}

SEC("socket")
int ctx_write(struct __sk_buff *skb)
{
	skb->len = 1;
	return 0;
}

SEC("socket")
int a_very_long_line(struct __sk_buff *skb) { __u32 aaaaaaaaaaaaaaaaaaaaaaaaaaaa = bpf_get_prandom_u32(), bbbbbbbbbbbbbbbbbbbbbbbbbbbb = aaaaaaaaaaaaaaaaaaaaaaaaaaaa * 3; return *(volatile int *)(long)(bbbbbbbbbbbbbbbbbbbbbbbbbbbb + 1); }

__attribute__((noinline)) int global_fn(int x)
{
	if (x < 100)
		return x;
	return *(volatile int *)(long)x;
}

SEC("socket")
int calls_global(void *ctx)
{
	return global_fn(bpf_get_prandom_u32());
}

SEC("socket")
int spin(void *ctx)
{
	for (;;)
		;
	return 0;
}

SEC("socket")
int back_edge(void *ctx)
{
	volatile int s = 0;
	int i, n = bpf_get_prandom_u32() & 15;

	for (i = 0; i < n; i++)
		s += i;
	return s;
}

SEC("socket")
int wide_const(void *ctx)
{
	__u64 v = bpf_get_prandom_u32();

	return (v * 0x123456789ULL) >> 33;
}

char _license[] SEC("license") = "GPL";
