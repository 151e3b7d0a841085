// SPDX-License-Identifier: GPL-2.0
/*
 * mlb-model: train, inspect and evaluate scx_mlb model files.
 *
 * Exit status: 0 success, 1 failure (unreadable data, refused model, ...), 2 bad arguments.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mlb/features.h"
#include "data.h"
#include "metrics.h"
#include "model.h"
#include "train.h"

#define EXIT_USAGE   2
#define OPT_VAL_FRAC 256 /* long-only: -V is --version, as in scx_mlb */

static const char usage_text[] =
    "Usage: mlb-model COMMAND [OPTIONS] ARGS...\n"
    "       mlb-model -V|--version\n"
    "Train, inspect and evaluate scx_mlb model files (format: docs/model.md).\n"
    "\n"
    "Commands:\n"
    "  train [OPTIONS] -o MODEL DATA.csv   train on a labelled CSV, quantize, check, write\n"
    "  show MODEL                          print a model file readably\n"
    "  eval [--label=COL] MODEL DATA.csv   metrics of the (quantized) model on a CSV\n"
    "  check [--label=COL] DATA.csv        validate a dataset: rows and label balance\n"
    "  synth [--seed=N] [--noise=P] N OUT.csv\n"
    "                                      write N synthetic labelled decisions\n"
    "\n"
    "train options:\n"
    "  -o, --output=FILE         model file to write (required)\n"
    "  -H, --hidden=A[,B]        hidden layer sizes, 1..32 each, or 'none' (default 16,8)\n"
    "  -e, --epochs=N            at most N epochs (default 50)\n"
    "  -l, --lr=X                Adam learning rate (default 0.003)\n"
    "  -b, --batch=N             mini-batch size (default 64)\n"
    "  -p, --patience=N          early stopping patience in epochs (default 8)\n"
    "  -s, --seed=N              seed of split, init and shuffling (default 1)\n"
    "  -w, --class-weights=W0,W1 loss weights of label 0 and 1, or 'auto' (default 1,1)\n"
    "  -L, --label=COL           label column (default 'label')\n"
    "  -a, --min-agreement=PCT   refuse a model whose quantized decisions agree with the\n"
    "                            float ones on less than PCT%% of validation (default 99.5)\n"
    "      --val-frac=F          validation share of the samples (default 0.2)\n"
    "  -v, --verbose             one line per epoch on stderr\n"
    "\n"
    "Examples:\n"
    "  mlb-model synth 20000 /tmp/decisions.csv\n"
    "  mlb-model train -H 16,8 -e 30 -w auto -o /tmp/m.mlb /tmp/decisions.csv\n"
    "  mlb-model show /tmp/m.mlb\n"
    "  mlb-model eval /tmp/m.mlb /tmp/decisions.csv\n"
    "\n"
    "Exit status: 0 ok, 1 failure (data, refused model), 2 bad arguments.\n";

static void usage(FILE *f)
{
	fputs(usage_text, f);
}

static void __attribute__((noreturn, format(printf, 1, 2))) bad_args(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mlb-model: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try 'mlb-model --help')\n");
	exit(EXIT_USAGE);
}

/* bad_opt - the one-line error for the option getopt_long() just refused, exit 2. */
static void __attribute__((noreturn)) bad_opt(const char *cmd, const char *optstring, char **argv)
{
	if (optopt >= OPT_VAL_FRAC) /* a long-only option without its value */
		bad_args("%s: option '%s' needs a value", cmd, argv[optind - 1]);
	if (optopt && strchr(optstring, optopt))
		bad_args("%s: option '-%c' needs a value", cmd, optopt);
	if (optopt)
		bad_args("%s: unknown option '-%c'", cmd, optopt);
	bad_args("%s: unknown or incomplete option '%s'", cmd, argv[optind - 1]);
}

static long parse_long(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		bad_args("%s: '%s' is not an integer in [%ld, %ld]", opt, s, lo, hi);
	return v;
}

static double parse_double(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi))
		bad_args("%s: '%s' is not a number in [%g, %g]", opt, s, lo, hi);
	return v;
}

static int cmd_train(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"hidden", required_argument, NULL, 'H'},
	    {"epochs", required_argument, NULL, 'e'},
	    {"lr", required_argument, NULL, 'l'},
	    {"batch", required_argument, NULL, 'b'},
	    {"patience", required_argument, NULL, 'p'},
	    {"seed", required_argument, NULL, 's'},
	    {"class-weights", required_argument, NULL, 'w'},
	    {"label", required_argument, NULL, 'L'},
	    {"min-agreement", required_argument, NULL, 'a'},
	    {"val-frac", required_argument, NULL, OPT_VAL_FRAC},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {},
	};
	struct mlb_train_opts o;
	struct mlb_train_report rep;
	struct mlb_dataset ds = {};
	struct mlb_model *m;
	const char *output = NULL;
	char err[512], *comma, buf[64];
	long n;
	int c, ret;

	mlb_train_defaults(&o);
	while ((c = getopt_long(argc, argv, "o:H:e:l:b:p:s:w:L:a:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'H':
			if (!strcmp(optarg, "none")) {
				o.n_hidden = 0;
				break;
			}
			snprintf(buf, sizeof(buf), "%s", optarg);
			comma = strchr(buf, ',');
			if (comma)
				*comma = 0;
			o.n_hidden = comma ? 2 : 1;
			o.hidden[0] = parse_long("--hidden", buf, 1, MLB_NN_MAX_HIDDEN);
			if (comma)
				o.hidden[1] =
				    parse_long("--hidden", comma + 1, 1, MLB_NN_MAX_HIDDEN);
			break;
		case 'e':
			o.mlp.epochs = parse_long("--epochs", optarg, 1, 100000);
			break;
		case 'l':
			o.mlp.lr = parse_double("--lr", optarg, 1e-7, 1.0);
			break;
		case 'b':
			o.mlp.batch = parse_long("--batch", optarg, 1, 1 << 20);
			break;
		case 'p':
			o.mlp.patience = parse_long("--patience", optarg, 1, 100000);
			break;
		case 's':
			o.mlp.seed = parse_long("--seed", optarg, 0, LONG_MAX);
			break;
		case 'w':
			if (!strcmp(optarg, "auto")) {
				o.auto_class_w = 1;
				break;
			}
			snprintf(buf, sizeof(buf), "%s", optarg);
			comma = strchr(buf, ',');
			if (!comma)
				bad_args("--class-weights: expected W0,W1 or auto, got '%s'",
					 optarg);
			*comma = 0;
			o.mlp.class_w[0] = parse_double("--class-weights", buf, 1e-6, 1e6);
			o.mlp.class_w[1] = parse_double("--class-weights", comma + 1, 1e-6, 1e6);
			break;
		case 'L':
			if (!*optarg || strlen(optarg) >= MLB_MODEL_NAME_LEN)
				bad_args("--label: a column name of 1..%d characters",
					 MLB_MODEL_NAME_LEN - 1);
			o.label = optarg;
			break;
		case 'a':
			o.min_agreement = parse_double("--min-agreement", optarg, 0, 100) / 100.0;
			break;
		case OPT_VAL_FRAC:
			o.val_frac = parse_double("--val-frac", optarg, 0.01, 0.9);
			break;
		case 'v':
			o.mlp.verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			bad_opt("train", "o:H:e:l:b:p:s:w:L:a:", argv);
		}
	}
	if (!output)
		bad_args("train: no output file (-o MODEL)");
	if (argc - optind != 1)
		bad_args("train: expected one DATA.csv, got %d arguments", argc - optind);

	n = mlb_csv_read(argv[optind], o.label, &ds, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "mlb-model: %s\n", err);
		return 1;
	}
	m = malloc(sizeof(*m));
	if (!m) {
		fprintf(stderr, "mlb-model: out of memory\n");
		mlb_dataset_free(&ds);
		return 1;
	}
	ret = mlb_train_model(&ds, &o, m, &rep, err, sizeof(err));
	if (rep.n_train)
		mlb_train_report_print(stdout, &rep);
	if (!ret)
		ret = mlb_model_save(output, m, err, sizeof(err));
	if (ret)
		fprintf(stderr, "mlb-model: %s\n", err);
	else
		printf("wrote %s (%.2f s)\n", output, rep.train_seconds);
	free(m);
	mlb_dataset_free(&ds);
	return ret ? 1 : 0;
}

static int cmd_show(int argc, char **argv)
{
	struct mlb_model *m;
	char err[512];

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc != 2)
		bad_args("show: expected one MODEL file");
	m = malloc(sizeof(*m));
	if (!m || mlb_model_load(argv[1], m, err, sizeof(err))) {
		fprintf(stderr, "mlb-model: %s\n", m ? err : "out of memory");
		free(m);
		return 1;
	}
	mlb_model_dump(stdout, m);
	free(m);
	return 0;
}

/* check [--label=COL] DATA.csv: read (and so validate) a dataset, print its size. */
static int cmd_check(int argc, char **argv)
{
	const char *label = "label";
	struct mlb_dataset ds = {};
	size_t pos = 0;
	char err[512];
	long n;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc == 3 && !strncmp(argv[1], "--label=", 8)) {
		label = argv[1] + 8;
		argv++;
		argc--;
	}
	if (argc != 2)
		bad_args("check: expected [--label=COL] DATA.csv");
	n = mlb_csv_read(argv[1], label, &ds, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "mlb-model: %s\n", err);
		return 1;
	}
	for (size_t k = 0; k < ds.n; k++)
		pos += ds.y[k];
	printf("rows=%zu label1=%zu label0=%zu\n", ds.n, pos, ds.n - pos);
	mlb_dataset_free(&ds);
	return 0;
}

static int cmd_eval(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"label", required_argument, NULL, 'L'},
	    {"help", no_argument, NULL, 'h'},
	    {},
	};
	const char *label = "label";
	struct mlb_dataset ds = {};
	struct mlb_metrics met;
	struct mlb_model *m;
	double *score;
	char err[512];
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "L:h", opts, NULL)) != -1) {
		switch (c) {
		case 'L':
			label = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			bad_opt("eval", "L:", argv);
		}
	}
	if (argc - optind != 2)
		bad_args("eval: expected MODEL DATA.csv");
	m = malloc(sizeof(*m));
	if (!m || mlb_model_load(argv[optind], m, err, sizeof(err))) {
		fprintf(stderr, "mlb-model: %s\n", m ? err : "out of memory");
		free(m);
		return 1;
	}
	if (mlb_csv_read(argv[optind + 1], label, &ds, err, sizeof(err)) < 0) {
		fprintf(stderr, "mlb-model: %s\n", err);
		goto out;
	}
	score = malloc(sizeof(*score) * (ds.n ? ds.n : 1));
	for (size_t k = 0; score && k < ds.n; k++)
		score[k] = mlb_model_score(m, ds.x + k * MLB_NR_FEATURES) / (double)MLB_NN_ONE;
	if (score && !mlb_metrics_compute(score, ds.y, ds.n, &met)) {
		mlb_metrics_print(stdout, "quantized model", &met);
		ret = 0;
	} else {
		fprintf(stderr, "mlb-model: out of memory\n");
	}
	free(score);
out:
	mlb_dataset_free(&ds);
	free(m);
	return ret;
}

static int cmd_synth(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"seed", required_argument, NULL, 's'},
	    {"noise", required_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},
	    {},
	};
	struct mlb_dataset ds = {};
	double noise = 0.02;
	u64 seed = 1;
	char err[512];
	long n;
	int c, ret;

	while ((c = getopt_long(argc, argv, "s:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			seed = parse_long("--seed", optarg, 0, LONG_MAX);
			break;
		case 'n':
			noise = parse_double("--noise", optarg, 0.0, 0.5);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			bad_opt("synth", "s:n:", argv);
		}
	}
	if (argc - optind != 2)
		bad_args("synth: expected N OUT.csv");
	n = parse_long("synth N", argv[optind], 1, 100000000);
	if (mlb_synth(&ds, n, seed, noise)) {
		fprintf(stderr, "mlb-model: out of memory\n");
		return 1;
	}
	ret = mlb_csv_write(argv[optind + 1], &ds, err, sizeof(err));
	if (ret)
		fprintf(stderr, "mlb-model: %s\n", err);
	mlb_dataset_free(&ds);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	opterr = 0; /* getopt's own messages would make two lines: bad_opt() says it once */
	if (argc < 2)
		bad_args("no command");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		if (argc > 2)
			bad_args("%s takes no argument", argv[1]);
		printf("mlb-model %s (model format version %d)\n", MLB_VERSION, MLB_MODEL_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "train"))
		return cmd_train(argc - 1, argv + 1);
	if (!strcmp(argv[1], "show"))
		return cmd_show(argc - 1, argv + 1);
	if (!strcmp(argv[1], "eval"))
		return cmd_eval(argc - 1, argv + 1);
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(argv[1], "synth"))
		return cmd_synth(argc - 1, argv + 1);
	bad_args("unknown command '%s'", argv[1]);
}
