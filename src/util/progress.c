#include "util/progress.h"

#include "util/kit.h"
#include "util/text.h"

#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define BAR_CELLS 20

static void clock_text(char *buf, size_t len, double seconds)
{
	if (seconds < 0)
		seconds = 0;
	unsigned long s = (unsigned long)(seconds + 0.5);
	if (s >= 3600)
		pb_format(buf, len, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
	else
		pb_format(buf, len, "%lu:%02lu", s / 60, s % 60);
}

void pb_progress_format(char *buf, size_t len, unsigned done, unsigned total, double elapsed_s,
			const char *what, unsigned width)
{
	if (!len)
		return;
	if (total < done)
		total = done;
	unsigned pct = total ? (unsigned)((uint64_t)done * 100 / total) : 100;
	unsigned filled = total ? (unsigned)((uint64_t)done * BAR_CELLS / total) : BAR_CELLS;
	char bar[BAR_CELLS + 1];
	for (unsigned i = 0; i < BAR_CELLS; i++)
		bar[i] = i < filled ? '#' : '.';
	bar[BAR_CELLS] = '\0';
	char elapsed[16], left[32] = "";
	clock_text(elapsed, sizeof elapsed, elapsed_s);
	/* the time left at the pace so far; nothing to go on before the first run ends */
	if (done && done < total) {
		char t[16];
		clock_text(t, sizeof t, elapsed_s / done * (total - done));
		pb_format(left, sizeof left, ", ~%s left", t);
	}
	char head[128];
	pb_format(head, sizeof head, "[%s] %u/%u %3u %%  %s%s", bar, done, total, pct, elapsed,
		  left);
	if (width > len - 1)
		width = (unsigned)(len - 1);
	size_t used = strlen(head);
	if (used > width)
		used = width;
	memcpy(buf, head, used);
	buf[used] = '\0';
	if (what && *what && used + 2 < width) {
		/* the line stops at the terminal's width: what runs on is cut there on purpose,
		 * at the start of a character (a byte cut could split a "µ") */
		size_t room = width - used - 2, n = strlen(what);
		if (n > room)
			n = pb_utf8_floor(what, room);
		memcpy(buf + used, "  ", 2);
		memcpy(buf + used + 2, what, n);
		buf[used + 2 + n] = '\0';
	}
}

static unsigned terminal_width(FILE *out)
{
	struct winsize ws;
	unsigned cols = PB_PROGRESS_MAX_WIDTH;
	if (!ioctl(fileno(out), TIOCGWINSZ, &ws) && ws.ws_col)
		cols = ws.ws_col;
	if (cols > PB_PROGRESS_MAX_WIDTH)
		cols = PB_PROGRESS_MAX_WIDTH;
	/* one column spare: a line exactly as wide as the terminal wraps on some of them */
	return cols > 1 ? cols - 1 : 1;
}

void pb_progress_start(struct pb_progress *p, FILE *out, bool draw, unsigned total)
{
	memset(p, 0, sizeof *p);
	p->out = out;
	p->draw = draw && out;
	p->total = total;
	p->start_ns = pb_now_ns();
	p->width = p->draw ? terminal_width(out) : PB_PROGRESS_MAX_WIDTH - 1;
}

static void draw(struct pb_progress *p, unsigned done, const char *what)
{
	char line[PB_PROGRESS_MAX_WIDTH + 1];
	pb_progress_format(line, sizeof line, done, p->total, (pb_now_ns() - p->start_ns) / 1e9,
			   what, p->width);
	fprintf(p->out, "\r\033[K%s", line);
	fflush(p->out);
	p->drawn = true;
}

void pb_progress_step(struct pb_progress *p, const char *what)
{
	p->started_runs++;
	if (p->started_runs > p->total)
		p->total = p->started_runs;
	if (p->draw)
		draw(p, p->started_runs - 1, what);
}

void pb_progress_more(struct pb_progress *p, int runs)
{
	int64_t total = (int64_t)p->total + runs;
	p->total = total < (int64_t)p->started_runs ? p->started_runs : (unsigned)total;
}

void pb_progress_clear(struct pb_progress *p)
{
	if (p->draw && p->drawn) {
		fprintf(p->out, "\r\033[K");
		fflush(p->out);
	}
	p->drawn = false;
}

void pb_progress_finish(struct pb_progress *p)
{
	/* the estimate of the total may have been high (runs a failure or a skip left out):
	 * what was begun is what there was */
	p->total = p->started_runs;
	if (p->draw && p->started_runs) {
		draw(p, p->started_runs, NULL);
		fputc('\n', p->out);
		fflush(p->out);
	}
	p->drawn = false;
}
