/* The callgrind oracle: a parser of callgrind's output format and a runner for valgrind. */
#include "analysis/callgrind.h"
#include "util/kit.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_POSITIONS 8
#define MAX_EVENTS 64

struct parser {
	unsigned npos;           /* position columns per cost line */
	int instr_col;           /* which one is the instruction address, -1 if none */
	int ir, dr, dw;          /* event columns, -1 if absent */
	uint64_t last[MAX_POSITIONS];
	bool skip_next;          /* the line after calls= is the call's inclusive cost */
	struct pb_cg_instr *v;
	size_t n, cap;
	unsigned long line;
	const char *object;      /* keep only this object's costs; NULL = all */
	bool in_object;
	bool *id_matches;        /* compressed object ids: does id name `object`? */
	size_t nids;
};

static bool parse_uint(const char *s, size_t len, int base, uint64_t *out);
static int bad(struct parser *ps, struct pb_error *err, const char *what);

/* Compressed names are "(id) name" the first time and "(id)" after. */
#define MAX_NAME_ID 1000000

static int object_line(struct parser *ps, const char *p, const char *end, struct pb_error *err)
{
	long id = -1;
	if (p < end && *p == '(') {
		const char *close = memchr(p, ')', (size_t)(end - p));
		uint64_t v;
		if (!close || !parse_uint(p + 1, (size_t)(close - p - 1), 10, &v) || v > MAX_NAME_ID)
			return bad(ps, err, "bad compressed name id");
		id = (long)v;
		p = close + 1;
		while (p < end && *p == ' ')
			p++;
	}
	if (p == end) {
		if (id < 0)
			return bad(ps, err, "empty ob= line");
		ps->in_object = !ps->object || ((size_t)id < ps->nids && ps->id_matches[id]);
		return 0;
	}
	ps->in_object = !ps->object || (strlen(ps->object) == (size_t)(end - p) &&
					!memcmp(ps->object, p, (size_t)(end - p)));
	if (id >= 0) {
		if ((size_t)id >= ps->nids) {
			size_t n = (size_t)id + 1;
			bool *m = realloc(ps->id_matches, n * sizeof *m);
			if (!m)
				return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
			memset(m + ps->nids, 0, (n - ps->nids) * sizeof *m);
			ps->id_matches = m;
			ps->nids = n;
		}
		ps->id_matches[id] = ps->in_object;
	}
	return 0;
}

static bool starts(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len >= n && !memcmp(s, prefix, n);
}

/* Next whitespace-separated token of [*p, end); false at the end. */
static bool token(const char **p, const char *end, const char **tok, size_t *tlen)
{
	const char *s = *p;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == end)
		return false;
	const char *e = s;
	while (e < end && *e != ' ' && *e != '\t')
		e++;
	*tok = s;
	*tlen = (size_t)(e - s);
	*p = e;
	return true;
}

static bool parse_uint(const char *s, size_t len, int base, uint64_t *out)
{
	if (!len)
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned d;
		char c = s[i];
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return false;
		if (v > (UINT64_MAX - d) / (uint64_t)base)
			return false;
		v = v * (uint64_t)base + d;
	}
	*out = v;
	return true;
}

static int bad(struct parser *ps, struct pb_error *err, const char *what)
{
	return pb_fail(err, PB_EXIT_BAD_FILE, 0, "callgrind profile, line %lu: %s", ps->line, what);
}

static int header_positions(struct parser *ps, const char *p, const char *end,
			    struct pb_error *err)
{
	const char *tok;
	size_t tlen;
	ps->npos = 0;
	ps->instr_col = -1;
	while (token(&p, end, &tok, &tlen)) {
		if (ps->npos == MAX_POSITIONS)
			return bad(ps, err, "too many position columns");
		if (tlen == 5 && !memcmp(tok, "instr", 5))
			ps->instr_col = (int)ps->npos;
		ps->npos++;
	}
	if (!ps->npos)
		return bad(ps, err, "empty positions: line");
	memset(ps->last, 0, sizeof ps->last);
	return 0;
}

static int header_events(struct parser *ps, const char *p, const char *end, struct pb_error *err)
{
	const char *tok;
	size_t tlen;
	int col = 0;
	ps->ir = ps->dr = ps->dw = -1;
	while (token(&p, end, &tok, &tlen)) {
		if (col == MAX_EVENTS)
			return bad(ps, err, "too many event columns");
		if (tlen == 2 && !memcmp(tok, "Ir", 2))
			ps->ir = col;
		else if (tlen == 2 && !memcmp(tok, "Dr", 2))
			ps->dr = col;
		else if (tlen == 2 && !memcmp(tok, "Dw", 2))
			ps->dw = col;
		col++;
	}
	if (ps->ir < 0)
		return bad(ps, err, "the events: line has no Ir");
	return 0;
}

static int add_cost(struct parser *ps, uint64_t addr, const uint64_t *ev, struct pb_error *err)
{
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 1024;
		struct pb_cg_instr *v = realloc(ps->v, cap * sizeof *v);
		if (!v)
			return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory reading a profile");
		ps->v = v;
		ps->cap = cap;
	}
	ps->v[ps->n++] = (struct pb_cg_instr){
		.addr = addr,
		.ir = ev[ps->ir],
		.dr = ps->dr >= 0 ? ev[ps->dr] : 0,
		.dw = ps->dw >= 0 ? ev[ps->dw] : 0,
	};
	return 0;
}

static int cost_line(struct parser *ps, const char *p, const char *end, struct pb_error *err)
{
	const char *tok;
	size_t tlen;
	uint64_t pos[MAX_POSITIONS];
	for (unsigned i = 0; i < ps->npos; i++) {
		if (!token(&p, end, &tok, &tlen))
			return bad(ps, err, "a cost line has fewer positions than declared");
		uint64_t v;
		if (tlen == 1 && tok[0] == '*') {
			v = ps->last[i];
		} else if (tok[0] == '+' || tok[0] == '-') {
			if (!parse_uint(tok + 1, tlen - 1, 10, &v))
				return bad(ps, err, "bad relative position");
			v = tok[0] == '+' ? ps->last[i] + v : ps->last[i] - v;
		} else if (tlen > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X')) {
			if (!parse_uint(tok + 2, tlen - 2, 16, &v))
				return bad(ps, err, "bad hexadecimal position");
		} else if (!parse_uint(tok, tlen, 10, &v)) {
			return bad(ps, err, "bad position");
		}
		pos[i] = v;
	}
	memcpy(ps->last, pos, ps->npos * sizeof pos[0]);
	uint64_t ev[MAX_EVENTS] = {0};
	unsigned nev = 0;
	while (token(&p, end, &tok, &tlen)) {
		if (nev == MAX_EVENTS)
			return bad(ps, err, "a cost line has more values than events");
		if (!parse_uint(tok, tlen, 10, &ev[nev++]))
			return bad(ps, err, "bad event count");
	}
	if (ps->skip_next) {
		ps->skip_next = false;
		return 0;
	}
	if (ps->instr_col < 0)
		return bad(ps, err, "no instruction addresses: the profile was not written with "
				    "--dump-instr=yes");
	if (ps->ir < 0)
		return bad(ps, err, "a cost line before the events: line");
	if (!ps->in_object)
		return 0;
	return add_cost(ps, pos[ps->instr_col], ev, err);
}

static int by_addr(const void *a, const void *b)
{
	const struct pb_cg_instr *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int pb_callgrind_parse(const char *text, size_t len, const char *object,
		       struct pb_cg_profile *out, struct pb_error *err)
{
	struct parser ps = {.npos = 1, .instr_col = -1, .ir = -1, .dr = -1, .dw = -1,
			    .object = object, .in_object = !object};
	memset(out, 0, sizeof *out);
	const char *p = text, *end = text + len;
	bool seen_events = false;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t ll = (size_t)(le - p);
		if (ll && p[ll - 1] == '\r')
			ll--;
		ps.line++;
		int rc = 0;
		char c = ll ? p[0] : '#';
		if (c == '#') {
			/* comment or empty */
		} else if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*') {
			rc = cost_line(&ps, p, p + ll, err);
		} else if (starts(p, ll, "positions:")) {
			rc = header_positions(&ps, p + 10, p + ll, err);
		} else if (starts(p, ll, "events:")) {
			rc = header_events(&ps, p + 7, p + ll, err);
			seen_events = true;
		} else if (starts(p, ll, "calls=")) {
			ps.skip_next = true;
		} else if (starts(p, ll, "ob=")) {
			rc = object_line(&ps, p + 3, p + ll, err);
		}
		if (rc) {
			free(ps.v);
			free(ps.id_matches);
			return -1;
		}
		p = nl ? nl + 1 : end;
	}
	free(ps.id_matches);
	if (!seen_events) {
		free(ps.v);
		return pb_fail(err, PB_EXIT_BAD_FILE, 0,
			       "not a callgrind profile: no events: line (truncated or another "
			       "format)");
	}
	if (ps.n)
		qsort(ps.v, ps.n, sizeof *ps.v, by_addr);
	size_t w = 0;
	for (size_t r = 0; r < ps.n; r++) {
		if (w && ps.v[w - 1].addr == ps.v[r].addr) {
			ps.v[w - 1].ir += ps.v[r].ir;
			ps.v[w - 1].dr += ps.v[r].dr;
			ps.v[w - 1].dw += ps.v[r].dw;
		} else {
			ps.v[w++] = ps.v[r];
		}
	}
	out->instr = ps.v;
	out->n = w;
	out->has_data = ps.dr >= 0 && ps.dw >= 0;
	return 0;
}

int pb_callgrind_parse_file(const char *path, const char *object, struct pb_cg_profile *out,
			    struct pb_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return pb_fail(err, PB_EXIT_BAD_FILE, errno, "cannot open callgrind profile %s: %s",
			       path, strerror(errno));
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 1 << 20;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory reading %s",
					       path);
			}
			buf = nb;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	bool failed = ferror(f);
	fclose(f);
	if (failed) {
		free(buf);
		return pb_fail(err, PB_EXIT_BAD_FILE, 0, "cannot read %s", path);
	}
	int rc = pb_callgrind_parse(buf, len, object, out, err);
	free(buf);
	if (rc)
		pb_error_append(err, " (%s)", path);
	return rc;
}

void pb_cg_profile_free(struct pb_cg_profile *p)
{
	free(p->instr);
	p->instr = NULL;
	p->n = 0;
}

const struct pb_cg_instr *pb_cg_find(const struct pb_cg_profile *p, uint64_t addr)
{
	size_t lo = 0, hi = p->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->instr[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->n && p->instr[lo].addr == addr ? &p->instr[lo] : NULL;
}

uint64_t pb_cg_ir_range(const struct pb_cg_profile *p, uint64_t begin, uint64_t end)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->instr[i].addr >= begin && p->instr[i].addr < end)
			sum += p->instr[i].ir;
	return sum;
}

static bool find_valgrind(char *path, size_t len)
{
	const char *env = getenv("PATH");
	const char *dirs = env && *env ? env : "/usr/local/bin:/usr/bin:/bin";
	while (*dirs) {
		const char *colon = strchr(dirs, ':');
		size_t dl = colon ? (size_t)(colon - dirs) : strlen(dirs);
		if (dl && (size_t)snprintf(path, len, "%.*s/valgrind", (int)dl, dirs) < len &&
		    access(path, X_OK) == 0)
			return true;
		dirs += dl + (colon ? 1 : 0);
	}
	return false;
}

bool pb_callgrind_available(char *why, size_t len)
{
	char path[4096];
	if (find_valgrind(path, sizeof path))
		return true;
	snprintf(why, len, "valgrind is not on PATH (Debian/Ubuntu: apt install valgrind)");
	return false;
}

int pb_callgrind_run(char *const argv[], const char *out_path, const char *stdout_path,
		     bool cache_sim, struct pb_error *err)
{
	char valgrind[4096], out_opt[4200];
	if (!find_valgrind(valgrind, sizeof valgrind))
		return pb_fail(err, PB_EXIT_UNAVAILABLE, 0,
			       "valgrind is not on PATH (Debian/Ubuntu: apt install valgrind)");
	snprintf(out_opt, sizeof out_opt, "--callgrind-out-file=%s", out_path);
	/* Uncompressed positions and names keep the profile simple to read back; the parser
	 * handles compressed ones too. */
	const char *fixed[] = {valgrind, "--tool=callgrind", "--dump-instr=yes",
			       "--compress-pos=no", "--compress-strings=no", "--quiet",
			       cache_sim ? "--cache-sim=yes" : "--cache-sim=no", out_opt};
	size_t nfixed = PB_ARRAY_SIZE(fixed), nargs = 0;
	while (argv[nargs])
		nargs++;
	char **args = calloc(nfixed + nargs + 1, sizeof *args);
	if (!args)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	for (size_t i = 0; i < nfixed; i++)
		args[i] = (char *)fixed[i];
	for (size_t i = 0; i < nargs; i++)
		args[nfixed + i] = argv[i];

	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, stdout_path,
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	pid_t pid;
	int rc = posix_spawn(&pid, valgrind, &fa, NULL, args, environ);
	posix_spawn_file_actions_destroy(&fa);
	free(args);
	if (rc)
		return pb_fail(err, PB_EXIT_FAILURE, rc, "cannot start %s: %s", valgrind,
			       strerror(rc));
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return pb_fail(err, PB_EXIT_FAILURE, errno, "waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return pb_fail(err, PB_EXIT_FAILURE, 0,
			       "the command under callgrind failed (%s %d); its messages are above",
			       WIFEXITED(status) ? "exit status" : "signal",
			       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return 0;
}
