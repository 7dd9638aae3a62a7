//! The LRU lists of LRU hash maps (kernel/bpf/bpf_lru_list.c) on one CPU:
//! which element an insertion takes, and so which key an insertion evicts,
//! follow the kernel's lists exactly: active and inactive lists with
//! reference bits and a rotation cursor, a global free list that refills a
//! per-CPU free list `target_free` nodes at a time (shrinking the inactive
//! list when it runs dry), a per-CPU pending list, and for
//! `BPF_F_NO_COMMON_LRU` the per-CPU variant.
//!
//! Nodes are indices (an element each); the lists are intrusive doubly
//! linked lists with one sentinel per list, as the kernel's `list_head`s.
//! Whether a node is still in the hash table is the map's business: it is
//! asked through `del_from_htab`, which unlinks the node if it is.

/// `LOCAL_FREE_TARGET`, `PERCPU_FREE_TARGET`.
const LOCAL_FREE_TARGET: usize = 128;
const PERCPU_FREE_TARGET: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NodeType {
    Active,
    Inactive,
    Free,
    LocalFree,
    LocalPending,
}

impl NodeType {
    /// `NR_BPF_LRU_LIST_COUNT`: only active and inactive are counted.
    fn counted(self) -> Option<usize> {
        match self {
            NodeType::Active => Some(0),
            NodeType::Inactive => Some(1),
            _ => None,
        }
    }
}

/// One map's LRU.
#[derive(Clone, Debug)]
pub struct Lru {
    n: usize,
    percpu: bool,
    nr_scans: usize,
    target_free: usize,
    prev: Vec<usize>,
    next: Vec<usize>,
    ty: Vec<NodeType>,
    refb: Vec<bool>,
    counts: [usize; 2],
    /// A node of the inactive list, or its sentinel.
    next_inactive_rotation: usize,
    /// The per-CPU free llist (a stack: the last pushed pops first).
    local_free: Vec<usize>,
}

impl Lru {
    fn sentinel(&self, t: NodeType) -> usize {
        self.n
            + match t {
                NodeType::Active => 0,
                NodeType::Inactive => 1,
                NodeType::Free => 2,
                NodeType::LocalPending => 3,
                NodeType::LocalFree => 4, // a temporary list of harvested nodes
            }
    }

    /// `bpf_lru_init` and `bpf_lru_populate` for `n` elements.
    pub fn new(n: usize, percpu: bool) -> Lru {
        let total = n + 5;
        let mut l = Lru {
            n,
            percpu,
            nr_scans: if percpu { PERCPU_FREE_TARGET } else { LOCAL_FREE_TARGET },
            target_free: (n / super::maps::NR_CPUS as usize / 2).clamp(1, LOCAL_FREE_TARGET),
            prev: (0..total).collect(),
            next: (0..total).collect(),
            ty: vec![NodeType::Free; n],
            refb: vec![false; n],
            counts: [0; 2],
            next_inactive_rotation: n + 1,
            local_free: Vec::new(),
        };
        let free = l.sentinel(NodeType::Free);
        for i in 0..n {
            l.list_add(i, free);
        }
        l
    }

    fn list_del(&mut self, x: usize) {
        let (p, nx) = (self.prev[x], self.next[x]);
        self.next[p] = nx;
        self.prev[nx] = p;
        self.prev[x] = x;
        self.next[x] = x;
    }

    /// Inserts `x` right after `head` (at the head of its list).
    fn list_add(&mut self, x: usize, head: usize) {
        let first = self.next[head];
        self.next[head] = x;
        self.prev[x] = head;
        self.next[x] = first;
        self.prev[first] = x;
    }

    fn list_move(&mut self, x: usize, head: usize) {
        self.list_del(x);
        self.list_add(x, head);
    }

    fn empty(&self, head: usize) -> bool {
        self.next[head] == head
    }

    fn count_dec(&mut self, t: NodeType) {
        if let Some(i) = t.counted() {
            self.counts[i] = self.counts[i].saturating_sub(1);
        }
    }

    fn count_inc(&mut self, t: NodeType) {
        if let Some(i) = t.counted() {
            self.counts[i] += 1;
        }
    }

    /// `__bpf_lru_node_move_to_free`.
    fn move_to_free(&mut self, x: usize, free_list: usize, tgt: NodeType) {
        if x == self.next_inactive_rotation {
            self.next_inactive_rotation = self.prev[x];
        }
        self.count_dec(self.ty[x]);
        self.ty[x] = tgt;
        self.list_move(x, free_list);
    }

    /// `__bpf_lru_node_move_in`: from the pending list into the LRU list.
    fn move_in(&mut self, x: usize, tgt: NodeType) {
        self.count_inc(tgt);
        self.ty[x] = tgt;
        self.refb[x] = false;
        let head = self.sentinel(tgt);
        self.list_move(x, head);
    }

    /// `__bpf_lru_node_move`: between or within the active and inactive lists.
    fn move_node(&mut self, x: usize, tgt: NodeType) {
        if self.ty[x] != tgt {
            self.count_dec(self.ty[x]);
            self.count_inc(tgt);
            self.ty[x] = tgt;
        }
        self.refb[x] = false;
        if x == self.next_inactive_rotation {
            self.next_inactive_rotation = self.prev[x];
        }
        let head = self.sentinel(tgt);
        self.list_move(x, head);
    }

    fn rotate_active(&mut self) {
        let active = self.sentinel(NodeType::Active);
        if self.empty(active) {
            return;
        }
        let first = self.next[active];
        let mut node = self.prev[active];
        let mut i = 0;
        while node != active {
            let tmp = self.prev[node];
            let t = if self.refb[node] { NodeType::Active } else { NodeType::Inactive };
            self.move_node(node, t);
            i += 1;
            if i == self.nr_scans || node == first {
                break;
            }
            node = tmp;
        }
    }

    fn rotate_inactive(&mut self) {
        let inactive = self.sentinel(NodeType::Inactive);
        if self.empty(inactive) {
            return;
        }
        let mut last = self.next[self.next_inactive_rotation];
        if last == inactive {
            last = self.next[last];
        }
        let mut cur = self.next_inactive_rotation;
        let mut next = inactive;
        let mut i = 0;
        while i < self.nr_scans {
            if cur == inactive {
                cur = self.prev[cur];
                continue;
            }
            next = self.prev[cur];
            if self.refb[cur] {
                self.move_node(cur, NodeType::Active);
            }
            if cur == last {
                break;
            }
            cur = next;
            i += 1;
        }
        self.next_inactive_rotation = next;
    }

    /// `__bpf_lru_list_rotate`.
    fn rotate(&mut self) {
        if self.counts[1] < self.counts[0] {
            self.rotate_active();
        }
        self.rotate_inactive();
    }

    fn shrink_inactive(&mut self, tgt: usize, free_list: usize, free_type: NodeType, del: &mut dyn FnMut(usize) -> bool) -> usize {
        let inactive = self.sentinel(NodeType::Inactive);
        let (mut shrunk, mut i) = (0, 0);
        let mut node = self.prev[inactive];
        while node != inactive {
            let tmp = self.prev[node];
            if self.refb[node] {
                self.move_node(node, NodeType::Active);
            } else if del(node) {
                self.move_to_free(node, free_list, free_type);
                shrunk += 1;
                if shrunk == tgt {
                    break;
                }
            }
            i += 1;
            if i == self.nr_scans {
                break;
            }
            node = tmp;
        }
        shrunk
    }

    /// `__bpf_lru_list_shrink`: evicts up to `tgt` unreferenced inactive
    /// nodes, else one node whatever its reference bit.
    fn shrink(&mut self, tgt: usize, free_list: usize, free_type: NodeType, del: &mut dyn FnMut(usize) -> bool) -> usize {
        let n = self.shrink_inactive(tgt, free_list, free_type, del);
        if n > 0 {
            return n;
        }
        let inactive = self.sentinel(NodeType::Inactive);
        let list = if self.empty(inactive) { self.sentinel(NodeType::Active) } else { inactive };
        let mut node = self.prev[list];
        while node != list {
            let tmp = self.prev[node];
            if del(node) {
                self.move_to_free(node, free_list, free_type);
                return 1;
            }
            node = tmp;
        }
        0
    }

    fn add_pending(&mut self, x: usize) {
        self.ty[x] = NodeType::LocalPending;
        self.refb[x] = false;
        let head = self.sentinel(NodeType::LocalPending);
        self.list_add(x, head);
    }

    /// `bpf_lru_list_pop_free_to_local`.
    fn pop_free_to_local(&mut self, del: &mut dyn FnMut(usize) -> bool) {
        // __local_list_flush
        let pending = self.sentinel(NodeType::LocalPending);
        let mut node = self.prev[pending];
        while node != pending {
            let tmp = self.prev[node];
            let t = if self.refb[node] { NodeType::Active } else { NodeType::Inactive };
            self.move_in(node, t);
            node = tmp;
        }
        self.rotate();
        let (free, tmp_free) = (self.sentinel(NodeType::Free), self.sentinel(NodeType::LocalFree));
        let mut nfree = 0;
        let mut node = self.next[free];
        while node != free && nfree < self.target_free {
            let tmp = self.next[node];
            self.move_to_free(node, tmp_free, NodeType::LocalFree);
            nfree += 1;
            node = tmp;
        }
        if nfree < self.target_free {
            self.shrink(self.target_free - nfree, tmp_free, NodeType::LocalFree, del);
        }
        let mut node = self.next[tmp_free];
        while node != tmp_free {
            let tmp = self.next[node];
            self.list_del(node);
            self.local_free.push(node);
            node = tmp;
        }
    }

    /// `bpf_lru_pop_free`: the node for a new element, evicting if need be.
    pub fn pop_free(&mut self, del: &mut dyn FnMut(usize) -> bool) -> Option<usize> {
        if self.percpu {
            self.rotate();
            let free = self.sentinel(NodeType::Free);
            if self.empty(free) {
                self.shrink(PERCPU_FREE_TARGET, free, NodeType::Free, del);
            }
            if self.empty(free) {
                return None;
            }
            let node = self.next[free];
            self.refb[node] = false;
            self.move_node(node, NodeType::Inactive);
            return Some(node);
        }
        let mut node = self.local_free.pop();
        if node.is_none() {
            self.pop_free_to_local(del);
            node = self.local_free.pop();
        }
        if let Some(x) = node {
            self.add_pending(x);
            return Some(x);
        }
        // steal from this CPU's pending list (the only CPU)
        let pending = self.sentinel(NodeType::LocalPending);
        for force in [false, true] {
            let mut x = self.prev[pending];
            while x != pending {
                if (!self.refb[x] || force) && del(x) {
                    self.list_del(x);
                    self.add_pending(x);
                    return Some(x);
                }
                x = self.prev[x];
            }
        }
        None
    }

    /// `bpf_lru_push_free`: a node whose element left the hash table.
    pub fn push_free(&mut self, x: usize) {
        if x >= self.n || matches!(self.ty[x], NodeType::Free | NodeType::LocalFree) {
            return;
        }
        if !self.percpu && self.ty[x] == NodeType::LocalPending {
            self.ty[x] = NodeType::LocalFree;
            self.refb[x] = false;
            self.list_del(x);
            self.local_free.push(x);
            return;
        }
        self.move_node(x, NodeType::Free);
    }

    /// `bpf_lru_node_set_ref`: a lookup or update touched the element.
    pub fn set_ref(&mut self, x: usize) {
        if let Some(r) = self.refb.get_mut(x) {
            *r = true;
        }
    }
}
