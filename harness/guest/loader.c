/*
 * The vm backend's guest loader: /init of a throwaway QEMU guest.
 *
 * It is deliberately dumb. The host (harness/src/backend/vm.rs) prepares
 * every bpf(2) attr in Rust and sends it over a virtio-serial port; this
 * program places the attr and its buffers in memory, writes the pointers the
 * host asks for, makes the system call and sends back the result and the
 * buffers the kernel wrote. Besides bpf(2) it can set the effective
 * capabilities (unprivileged runs), close descriptors, write into a map
 * through an mmap of it (an arena's global data), read a file (the
 * kernel's BTF) or a byte range of one (/proc/kcore) and power the machine
 * off.
 *
 * Wire format, little endian: frames of `u32 type, u32 len, u8 payload[len]`.
 * The guest speaks first (HELLO); then every host request gets exactly one
 * reply whose type is the request's with REPLY set, except POWEROFF.
 * End of stream or any I/O error powers the guest off.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#define PROTO_VERSION 3
#define PORT_NAME "org.bpfselftest.loader"

enum {
	MSG_HELLO = 0x10,
	MSG_BPF = 1,
	MSG_CAPS = 2,
	MSG_CLOSE = 3,
	MSG_READ_FILE = 4,
	MSG_POWEROFF = 5,
	MSG_MAP_WRITE = 6,
	MSG_READ_RANGE = 7,
	MSG_REPLY = 0x80,
};

#define BUF_OUT 1u
/* Nothing the host sends is this big; a larger length means a broken stream. */
#define MAX_PAYLOAD (256u << 20)

static int port = -1;

static void poweroff(void)
{
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

static void fail(const char *what)
{
	fprintf(stderr, "bpf-selftest guest: %s: %s\n", what, strerror(errno));
	poweroff();
}

static void read_full(void *buf, size_t n)
{
	char *p = buf;

	while (n) {
		ssize_t r = read(port, p, n);

		if (r == 0)
			poweroff(); /* the host went away */
		if (r < 0) {
			if (errno == EINTR)
				continue;
			fail("read");
		}
		p += r;
		n -= r;
	}
}

static void write_full(const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t r = write(port, p, n);

		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			fail("write");
		}
		p += r;
		n -= r;
	}
}

/* A growing reply. */
struct out {
	char *p;
	size_t len, cap;
};

static void out_put(struct out *o, const void *data, size_t n)
{
	if (o->len + n > o->cap) {
		size_t cap = o->cap ? o->cap : 4096;

		while (cap < o->len + n)
			cap *= 2;
		o->p = realloc(o->p, cap);
		if (!o->p)
			fail("realloc");
		o->cap = cap;
	}
	memcpy(o->p + o->len, data, n);
	o->len += n;
}

static void out_u32(struct out *o, uint32_t v) { out_put(o, &v, 4); }
static void out_u64(struct out *o, uint64_t v) { out_put(o, &v, 8); }

static void send_frame(uint32_t type, const struct out *o)
{
	uint32_t hdr[2] = { type, o ? (uint32_t)o->len : 0 };

	write_full(hdr, sizeof(hdr));
	if (o && o->len)
		write_full(o->p, o->len);
}

/* Bounds-checked reading of a request payload. */
struct in {
	const char *p;
	size_t left;
	int bad;
};

static const void *in_take(struct in *in, size_t n)
{
	const void *p = in->p;

	if (in->bad || n > in->left) {
		in->bad = 1;
		return NULL;
	}
	in->p += n;
	in->left -= n;
	return p;
}

static uint32_t in_u32(struct in *in)
{
	const void *p = in_take(in, 4);
	uint32_t v = 0;

	if (p)
		memcpy(&v, p, 4);
	return v;
}

static uint64_t in_u64(struct in *in)
{
	const void *p = in_take(in, 8);
	uint64_t v = 0;

	if (p)
		memcpy(&v, p, 8);
	return v;
}

struct buf {
	uint32_t flags, size;
	char *p;
	size_t mapped; /* mmap length, 0 for calloc */
};

/* Big buffers (the 2 MiB verifier log) come straight from mmap: zero pages
 * nobody touches cost nothing, and used_len() can skip them. */
#define MMAP_MIN (64u << 10)

static void buf_alloc(struct buf *b)
{
	if (b->size >= MMAP_MIN) {
		b->mapped = b->size;
		b->p = mmap(NULL, b->mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (b->p == MAP_FAILED)
			fail("mmap");
		/* a transparent huge page would be 2 MiB to clear on first touch */
		madvise(b->p, b->mapped, MADV_NOHUGEPAGE);
	} else {
		/* 8 spare bytes so that an empty buffer still has an address */
		b->p = calloc(1, (size_t)b->size + 8);
		if (!b->p)
			fail("calloc");
	}
}

static void buf_free(struct buf *b)
{
	if (b->mapped)
		munmap(b->p, b->mapped);
	else
		free(b->p);
}

/* The buffer's length without trailing zeros (the host pads them back).
 * Pages of an mmap'ed buffer the kernel never wrote are not resident, hence
 * zero, and are skipped without reading them; the rest is scanned. */
static size_t used_len(const struct buf *b)
{
	size_t len = b->size;

	if (b->mapped) {
		size_t page = (size_t)sysconf(_SC_PAGESIZE);
		size_t pages = (b->mapped + page - 1) / page;
		unsigned char *resident = malloc(pages);

		if (resident && mincore(b->p, b->mapped, resident) == 0) {
			while (pages && !(resident[pages - 1] & 1))
				pages--;
			if (pages * page < len)
				len = pages * page;
		}
		free(resident);
	}
	while (len % 8 && b->p[len - 1] == 0)
		len--;
	if (len % 8 == 0) {
		while (len >= 8) {
			uint64_t w;

			memcpy(&w, b->p + len - 8, 8);
			if (w)
				break;
			len -= 8;
		}
	}
	while (len && b->p[len - 1] == 0)
		len--;
	return len;
}

/* A request the guest cannot make sense of: reply with ret -1, errno EPROTO. */
static void bpf_reply_error(int err)
{
	struct out o = { 0 };

	out_u64(&o, (uint64_t)-1);
	out_u32(&o, err);
	out_u32(&o, 0);
	send_frame(MSG_BPF | MSG_REPLY, &o);
	free(o.p);
}

static void do_bpf(struct in *in)
{
	uint32_t cmd = in_u32(in), nbufs = in_u32(in), nptrs = in_u32(in), i;
	struct buf *bufs;
	struct out o = { 0 };
	size_t total = 0;
	long ret;
	int err;

	if (in->bad || nbufs == 0 || nbufs > 64) {
		bpf_reply_error(EPROTO);
		return;
	}
	bufs = calloc(nbufs, sizeof(*bufs));
	if (!bufs)
		fail("calloc");
	for (i = 0; i < nbufs; i++) {
		uint32_t flags = in_u32(in), size = in_u32(in), len = in_u32(in);
		const void *data = in_take(in, len);

		total += size;
		if (in->bad || len > size || total > MAX_PAYLOAD)
			goto bad;
		bufs[i].flags = flags;
		bufs[i].size = size;
		buf_alloc(&bufs[i]);
		memcpy(bufs[i].p, data, len);
	}
	for (i = 0; i < nptrs; i++) {
		uint32_t b = in_u32(in), off = in_u32(in), target = in_u32(in);
		uint64_t addr;

		if (in->bad || b >= nbufs || target >= nbufs || (uint64_t)off + 8 > bufs[b].size)
			goto bad;
		addr = (uint64_t)(uintptr_t)bufs[target].p;
		memcpy(bufs[b].p + off, &addr, 8);
	}

	ret = syscall(__NR_bpf, cmd, bufs[0].p, bufs[0].size);
	err = ret < 0 ? errno : 0;

	out_u64(&o, (uint64_t)(int64_t)ret);
	out_u32(&o, err);
	{
		uint32_t nout = 0;

		for (i = 0; i < nbufs; i++)
			nout += !!(bufs[i].flags & BUF_OUT);
		out_u32(&o, nout);
	}
	for (i = 0; i < nbufs; i++) {
		uint32_t len;

		if (!(bufs[i].flags & BUF_OUT))
			continue;
		/* trailing zeros are implied: a 2 MiB log buffer costs its text */
		len = (uint32_t)used_len(&bufs[i]);
		out_u32(&o, i);
		out_u32(&o, len);
		out_put(&o, bufs[i].p, len);
	}
	send_frame(MSG_BPF | MSG_REPLY, &o);
	free(o.p);
	for (i = 0; i < nbufs; i++)
		buf_free(&bufs[i]);
	free(bufs);
	return;
bad:
	for (i = 0; i < nbufs; i++)
		buf_free(&bufs[i]);
	free(bufs);
	bpf_reply_error(EPROTO);
}

/* effective = (effective & ~clear) | set; replies with the old set. */
static void do_caps(struct in *in)
{
	uint64_t clear = in_u64(in), set = in_u64(in), old = 0, eff;
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	struct out o = { 0 };
	int err = 0;

	if (in->bad) {
		err = EPROTO;
	} else if (syscall(SYS_capget, &hdr, data)) {
		err = errno;
	} else {
		old = (uint64_t)data[1].effective << 32 | data[0].effective;
		eff = (old & ~clear) | set;
		data[0].effective = (uint32_t)eff;
		data[1].effective = (uint32_t)(eff >> 32);
		if (eff != old && syscall(SYS_capset, &hdr, data))
			err = errno;
	}
	out_u32(&o, err);
	out_u32(&o, 0);
	out_u64(&o, old);
	send_frame(MSG_CAPS | MSG_REPLY, &o);
	free(o.p);
}

static void do_close(struct in *in)
{
	uint32_t n = in_u32(in), i;

	for (i = 0; i < n && !in->bad; i++) {
		int fd = (int)in_u32(in);

		if (!in->bad && fd >= 0 && fd != port)
			close(fd);
	}
	send_frame(MSG_CLOSE | MSG_REPLY, NULL);
}

/*
 * u32 fd, u64 addr, u64 len, u64 off, data: mmap len bytes of the map
 * shared at addr (fixed unless 0), copy data in at off, unmap. Replies
 * with the errno of a failed mmap, 0 when done.
 */
static void do_map_write(struct in *in)
{
	int fd = (int)in_u32(in);
	uint64_t addr = in_u64(in), len = in_u64(in), off = in_u64(in);
	struct out o = { 0 };
	uint32_t err = 0;
	void *p;

	if (in->bad || off > len || in->left > len - off) {
		err = EPROTO;
	} else {
		p = mmap((void *)(uintptr_t)addr, len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | (addr ? MAP_FIXED : 0), fd, 0);
		if (p == MAP_FAILED) {
			err = errno;
		} else {
			memcpy((char *)p + off, in->p, in->left);
			munmap(p, len);
		}
	}
	out_u32(&o, err);
	send_frame(MSG_MAP_WRITE | MSG_REPLY, &o);
	free(o.p);
}

static void do_read_file(struct in *in)
{
	char path[4096];
	struct out o = { 0 };
	char chunk[65536];
	uint32_t err = 0;
	int fd;

	if (in->left >= sizeof(path)) {
		err = ENAMETOOLONG;
		out_u32(&o, err);
		goto send;
	}
	memcpy(path, in->p, in->left);
	path[in->left] = 0;
	out_u32(&o, 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		goto set_err;
	}
	for (;;) {
		ssize_t r = read(fd, chunk, sizeof(chunk));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = errno;
			o.len = 4;
			break;
		}
		if (r == 0)
			break;
		out_put(&o, chunk, r);
	}
	close(fd);
set_err:
	memcpy(o.p, &err, 4);
send:
	send_frame(MSG_READ_FILE | MSG_REPLY, &o);
	free(o.p);
}

/*
 * u64 off, u64 len, path: up to len bytes of the file from off (fewer at
 * its end). Replies with u32 errno (of open or of the first failed pread)
 * and the bytes read before it.
 */
static void do_read_range(struct in *in)
{
	uint64_t off = in_u64(in), len = in_u64(in), done = 0;
	char path[4096];
	struct out o = { 0 };
	char chunk[65536];
	uint32_t err = 0;
	int fd;

	out_u32(&o, 0);
	if (in->bad || len > MAX_PAYLOAD || off > INT64_MAX - len) {
		err = EPROTO;
		goto send;
	}
	if (in->left >= sizeof(path)) {
		err = ENAMETOOLONG;
		goto send;
	}
	memcpy(path, in->p, in->left);
	path[in->left] = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		goto send;
	}
	while (done < len) {
		size_t want = len - done < sizeof(chunk) ? (size_t)(len - done) : sizeof(chunk);
		ssize_t r = pread(fd, chunk, want, (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = errno;
			break;
		}
		if (r == 0)
			break;
		out_put(&o, chunk, r);
		done += r;
	}
	close(fd);
send:
	memcpy(o.p, &err, 4);
	send_frame(MSG_READ_RANGE | MSG_REPLY, &o);
	free(o.p);
}

static int open_port(void)
{
	struct timespec pause_ts = { 0, 10 * 1000 * 1000 };
	int tries;

	/* the port usually exists before /init runs; allow the driver 5 s */
	for (tries = 0; tries < 500; tries++) {
		DIR *d = opendir("/sys/class/virtio-ports");
		struct dirent *e;

		while (d && (e = readdir(d))) {
			char path[512], name[128] = { 0 };
			int fd;
			ssize_t n;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/sys/class/virtio-ports/%s/name", e->d_name);
			fd = open(path, O_RDONLY);
			if (fd < 0)
				continue;
			n = read(fd, name, sizeof(name) - 1);
			close(fd);
			if (n <= 0)
				continue;
			name[strcspn(name, "\n")] = 0;
			if (strcmp(name, PORT_NAME))
				continue;
			snprintf(path, sizeof(path), "/dev/%s", e->d_name);
			fd = open(path, O_RDWR | O_CLOEXEC);
			if (fd >= 0) {
				closedir(d);
				return fd;
			}
		}
		if (d)
			closedir(d);
		nanosleep(&pause_ts, NULL);
	}
	errno = ENODEV;
	return -1;
}

int main(void)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	struct utsname u;
	struct out hello = { 0 };

	mkdir("/dev", 0755);
	mkdir("/proc", 0555);
	mkdir("/sys", 0555);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	setrlimit(RLIMIT_MEMLOCK, &unlimited);

	port = open_port();
	if (port < 0)
		fail("virtio port " PORT_NAME);

	uname(&u);
	out_u32(&hello, PROTO_VERSION);
	out_put(&hello, u.release, strlen(u.release) + 1);
	out_put(&hello, u.machine, strlen(u.machine) + 1);
	send_frame(MSG_HELLO, &hello);
	free(hello.p);

	for (;;) {
		uint32_t hdr[2];
		struct in in;
		char *payload;

		read_full(hdr, sizeof(hdr));
		if (hdr[1] > MAX_PAYLOAD) {
			errno = EPROTO;
			fail("oversized request");
		}
		payload = malloc((size_t)hdr[1] + 1);
		if (!payload)
			fail("malloc");
		read_full(payload, hdr[1]);
		in.p = payload;
		in.left = hdr[1];
		in.bad = 0;
		switch (hdr[0]) {
		case MSG_BPF:
			do_bpf(&in);
			break;
		case MSG_CAPS:
			do_caps(&in);
			break;
		case MSG_CLOSE:
			do_close(&in);
			break;
		case MSG_READ_FILE:
			do_read_file(&in);
			break;
		case MSG_MAP_WRITE:
			do_map_write(&in);
			break;
		case MSG_READ_RANGE:
			do_read_range(&in);
			break;
		case MSG_POWEROFF:
			poweroff();
			break;
		default:
			errno = EPROTO;
			fail("unknown request");
		}
		free(payload);
	}
}
