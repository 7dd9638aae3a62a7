/*
 * A host helper of `bpf-selftest record`: the text test_loader prints for
 * xlated instructions, made by the kernel's own kernel/bpf/disasm.c. The
 * recorder compiles this file together with disasm.c of the 7.3 source
 * tree that scripts/setup-vm.sh fetched (harness/src/recorded/disasm_c.rs),
 * so that the text in the goldens is 7.3's and never the project's own
 * disassembler, which the goldens are there to check.
 *
 * Input, one instruction per line: 16 hex digits (the 8 bytes of the slot
 * in memory order), or 32 for an ld_imm64 and its second slot.
 * Output, one line per input line: the text, as test_loader's xlated dump
 * shows it without the `N: ` index. test_loader's callbacks are:
 *   - print: formats into the line buffer;
 *   - call: a bpf-to-bpf call shows its offset (the dump keeps the
 *     original imm in `off`) as a signed number; any other call is left
 *     to disasm.c (helper name, `kernel-function` or `unknown`);
 *   - no immediate callback: an ld_imm64 shows its 64-bit value in hex.
 * Then the `(xx) ` opcode prefix is cut, and a call loses everything from
 * its last `#` on. Input is trusted: it comes from the recorder.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disasm.h"

struct line {
	/* test_loader's buffer: longer texts are cut at 63 characters */
	char text[64];
	char call[24];
};

static void put_text(void *priv, const char *fmt, ...)
{
	struct line *l = priv;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(l->text, sizeof(l->text), fmt, ap);
	va_end(ap);
}

static const char *call_name(void *priv, const struct bpf_insn *insn)
{
	struct line *l = priv;

	if (insn->src_reg != BPF_PSEUDO_CALL)
		return NULL;
	snprintf(l->call, sizeof(l->call), "%+d", insn->off);
	return l->call;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* `n` bytes from 2n hex digits; 0 on success. */
static int unhex(const char *s, unsigned char *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

int main(void)
{
	char in[128];
	unsigned long lineno = 0;

	while (fgets(in, sizeof(in), stdin)) {
		struct bpf_insn insn[2];
		struct line l = { { 0 } };
		struct bpf_insn_cbs cbs = {
			.cb_print = put_text,
			.cb_call = call_name,
			.private_data = &l,
		};
		size_t len = strcspn(in, "\r\n");
		char *text, *end, *hash;

		lineno++;
		memset(insn, 0, sizeof(insn));
		if ((len != 16 && len != 32) || unhex(in, (unsigned char *)insn, len / 2)) {
			fprintf(stderr, "xlated_text: line %lu: expected 16 or 32 hex digits\n", lineno);
			return 1;
		}
		print_bpf_insn(&cbs, insn, true);
		/* `(xx) ` first; the text ends in a newline */
		text = strlen(l.text) > 5 ? l.text + 5 : l.text + strlen(l.text);
		end = text + strcspn(text, "\n");
		*end = 0;
		if (strncmp(text, "call ", 5) == 0 && (hash = strrchr(text, '#')))
			*hash = 0;
		printf("%s\n", text);
	}
	return ferror(stdin) ? 1 : 0;
}
