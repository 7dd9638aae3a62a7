// SPDX-License-Identifier: GPL-2.0
/* Programs of the c_programs suite (progs/c_programs.rs), compiled by the
 * runner with clang as the kernel's selftests are compiled. */
#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

struct stats {
	__u64 packets;
	__u64 bytes;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct stats);
} stats_by_port SEC(".maps");

const volatile __u32 weights[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
__u64 runs;
__u32 last_len = 7;

SEC("socket")
int sum_rodata(struct __sk_buff *skb)
{
	__u32 sum = 0;

	for (int i = 0; i < 8; i++)
		sum += weights[i];
	return sum;
}

SEC("socket")
int count_runs(struct __sk_buff *skb)
{
	runs += 2;
	last_len = skb->len;
	return runs + last_len;
}

SEC("socket")
int stats_update(struct __sk_buff *skb)
{
	struct stats init = { .packets = 1, .bytes = skb->len };
	__u32 port = 80;
	struct stats *s;

	bpf_map_update_elem(&stats_by_port, &port, &init, BPF_ANY);
	s = bpf_map_lookup_elem(&stats_by_port, &port);
	if (!s)
		return 1;
	s->packets += 1;
	return s->packets * 100 + s->bytes;
}

SEC("socket")
int stats_past_value(struct __sk_buff *skb)
{
	__u32 port = 80;
	struct stats *s;

	s = bpf_map_lookup_elem(&stats_by_port, &port);
	if (!s)
		return 0;
	/* one __u64 past the 16-byte value */
	return *(&s->bytes + 1);
}

SEC("socket")
int stats_unchecked(struct __sk_buff *skb)
{
	__u32 port = 80;
	struct stats *s;

	s = bpf_map_lookup_elem(&stats_by_port, &port);
	return s->packets;
}

struct pair {
	int a;
	int b;
};

__noinline int pair_sum(struct pair *p)
{
	if (!p)
		return -1;
	return p->a + p->b;
}

SEC("tc")
int global_func_arg(struct __sk_buff *skb)
{
	struct pair p = { .a = 20, .b = 22 };

	return pair_sum(&p);
}

SEC("tc")
int global_func_ctx_arg(struct __sk_buff *skb)
{
	return pair_sum((struct pair *)skb);
}

SEC("socket")
int core_field_exists(struct __sk_buff *skb)
{
	return bpf_core_field_exists(struct sk_buff, len) + bpf_core_field_exists(struct task_struct, pid) * 2;
}

struct inner_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} inner_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 2);
	__type(key, __u32);
	__array(values, struct inner_map);
} outer_map SEC(".maps") = {
	.values = { [1] = &inner_map },
};

SEC("socket")
int inner_map_slot(struct __sk_buff *skb)
{
	__u32 one = 1, zero = 0;
	__u64 *v;
	void *inner;

	if (bpf_map_lookup_elem(&outer_map, &zero))
		return 1;
	inner = bpf_map_lookup_elem(&outer_map, &one);
	if (!inner)
		return 2;
	v = bpf_map_lookup_elem(inner, &zero);
	if (!v)
		return 3;
	*v += 40;
	return *v + 2;
}

char _license[] SEC("license") = "GPL";
