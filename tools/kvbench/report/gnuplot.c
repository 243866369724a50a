// SPDX-License-Identifier: GPL-2.0
/*
 * kvbench: gnuplot, for both figures (plot.c's and forest.c's): the
 * formats a file name can ask for and their terminals, whether this
 * gnuplot can draw one, a string in gnuplot's quotes, and running a
 * script.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>

#include "kvbench.h"

static const struct {
	enum kvb_plot_fmt fmt;
	const char *ext;
	const char *term;	/* gnuplot's terminal */
} formats[] = {
	{ KVB_PLOT_PNG, ".png", "pngcairo" },
	{ KVB_PLOT_SVG, ".svg", "svg" },
	{ KVB_PLOT_JPEG, ".jpg", "jpeg" },
	{ KVB_PLOT_JPEG, ".jpeg", "jpeg" },
};

/* The format a file name asks for; -1 with a message in err. */
int kvb_plot_format(const char *file, char *err, size_t errlen)
{
	const char *dot = strrchr(file, '.');
	size_t i;

	for (i = 0; dot && i < ARRAY_SIZE(formats); i++)
		if (!strcasecmp(dot, formats[i].ext))
			return formats[i].fmt;
	snprintf(err, errlen, "%s: unknown format '%s': %s", file, dot ? dot : "",
		 "the name must end in .png, .svg, .jpg or .jpeg");
	return -1;
}

const char *kvb_plot_term(enum kvb_plot_fmt fmt)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(formats); i++)
		if (formats[i].fmt == fmt)
			return formats[i].term;
	return "pngcairo";
}

/*
 * Can this file be drawn here? The format from the name; a JPEG needs
 * gnuplot's libgd terminal, which not every build has: asked of gnuplot
 * now, so that nobody waits for a benchmark whose figure cannot be drawn.
 */
int kvb_plot_check(const char *file, char *err, size_t errlen)
{
	int fmt = kvb_plot_format(file, err, errlen), st;

	if (fmt != KVB_PLOT_JPEG)
		return fmt < 0 ? -1 : 0;
	st = system("gnuplot -e 'set terminal jpeg' </dev/null >/dev/null 2>&1");
	if (st == 0)
		return 0;
	if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 127)
		snprintf(err, errlen, "%s: %s", file,
			 "a JPEG needs gnuplot, which is not installed (apt-get install gnuplot-nox)");
	else
		snprintf(err, errlen, "%s: this gnuplot has no jpeg terminal: write .png or .svg",
			 file);
	return -1;
}

/* s inside gnuplot's single quotes: '' is a quote, control bytes go. */
void kvb_gnuplot_str(FILE *g, const char *s)
{
	fputc('\'', g);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("''", g);
		else if ((unsigned char)*s >= 0x20)
			fputc(*s, g);
	}
	fputc('\'', g);
}

/* Feed a script to gnuplot; 0, or -1 with a message in err. */
int kvb_run_gnuplot(const char *text, size_t len, char *err, size_t errlen)
{
	struct sigaction ign, old;
	int status;
	/* the figure goes to its file ("set output"), never to our stdout */
	FILE *g = popen("gnuplot >/dev/null", "w");

	if (!g) {
		snprintf(err, errlen, "cannot run gnuplot: %s", strerror(errno));
		return -1;
	}
	/* a gnuplot that is missing or dies must not kill us with SIGPIPE */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old);
	fwrite(text, 1, len, g);
	status = pclose(g);
	sigaction(SIGPIPE, &old, NULL);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(err, errlen, "gnuplot failed%s",
			 status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 127 ?
			 " (not installed? apt-get install gnuplot-nox)" : "");
		return -1;
	}
	return 0;
}
