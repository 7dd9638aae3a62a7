/* A seed for the object_open target: BTF-defined maps, global data of every
 * section kind, a static and a global subprogram, a callback address. */
#define SEC(n) __attribute__((section(n), used))
#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name
typedef unsigned int u32;
typedef unsigned long long u64;
static void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *) 1;
static long (*bpf_loop)(u32 nr, void *cb, void *ctx, u64 flags) = (void *) 181;

struct {
	__uint(type, 1);
	__uint(max_entries, 8);
	__type(key, int);
	__type(value, long);
} counts SEC(".maps");

int total = 1;
const volatile int limit = 4;
long scratch[4];

static __attribute__((noinline)) int add(int a, int b) { return a + b + limit; }
__attribute__((noinline)) int global_twice(int x) { return add(x, x); }
static int step(u32 i, void *ctx) { scratch[i & 3] += i; return 0; }

SEC("socket") int entry(void *ctx)
{
	int k = 0;
	long *v = bpf_map_lookup_elem(&counts, &k);
	bpf_loop(4, step, 0, 0);
	total += global_twice(v ? (int)*v : 0);
	return total;
}

SEC("?tc") int other(void *ctx) { return add(1, 2); }
char _license[] SEC("license") = "GPL";
