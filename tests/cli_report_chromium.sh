#!/bin/bash
# The report as a reader sees it: a short real suite writes a results folder with plots and
# report.html; headless Chromium opens a copy of the page with a script that, once everything
# has loaded, writes into the page how many images there are and which did not load (the
# report's PNGs, and each linked SVG shown as an image too), and what a reader would trip on:
# the scorecard must be the first section; no experiment table may have a column that is
# empty or "-" on every row, nor a row without a figure; no "nan" or "inf" anywhere; no raw
# snake_case key as a machine-table label; no table scrolls sideways in a window 1400 px wide.
# Every image must load. The plots' data and scripts are checked too: a log y axis where
# positive values span more than 100x, a distinct colour per series, a unit on every period
# shown, no plot whose series are all constant, and no share called accuracy (mode). The report of commit cd9b727 fails it: no scorecard, columns
# "-" on every row, raw keys, linear axes over 1000x, periods without units.
# PB_REPORT_DIR=DIR checks an existing results folder instead of running the suite.
# Installs nothing: without Chromium or gnuplot the test is skipped (77) and says why.
set -u
: "${PB_BIN:?PB_BIN must name the pesbench binary}"

browser=""
for b in chromium chromium-browser google-chrome; do
	if command -v "$b" >/dev/null 2>&1; then
		browser=$(command -v "$b")
		break
	fi
done
if [ -z "$browser" ]; then
	echo "SKIP: no chromium on PATH (Debian: apt-get install --no-install-recommends chromium," \
	     "or scripts/install-deps.sh)"
	exit 77
fi
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "SKIP: gnuplot is not installed, so the report has no images to check (install gnuplot-nox)"
	exit 77
fi

work=$(mktemp -d)
profile=$(mktemp -d)
trap 'rm -rf "$work" "$profile"; [ -n "${res:-}" ] && rm -f "$res/check.html"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

if [ -n "${PB_REPORT_DIR:-}" ]; then
	res=$PB_REPORT_DIR
else
	# A real suite, small: every experiment, so that every kind of table and plot is made.
	. "$(dirname "$0")/lib/suite_run.sh"
	suite_run "$work/run.log" "$work/run.err" "$work/res" \
		"$PB_BIN" run accuracy interval bias multi mode overhead cost buffer shadow \
		--facility timer:cpu-clock --facility sw:page-faults --runs 2 --threads 1 \
		--target-ms 10 --quiet --out "$work/res"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		cat "$work/run.log" "$work/run.err" >&2
		if [ "$rc" -eq 3 ]; then
			echo "SKIP: no sampling facility is available here to make a results folder"
			exit 77
		fi
		fail "pesbench run failed (exit $rc)"
		exit 1
	fi
	res="$work/res"
fi
[ -s "$res/report.html" ] || { fail "no report.html in $res"; exit 1; }
pngs=$(ls "$res"/plots/*.png 2>/dev/null | wc -l)
[ "$pngs" -gt 0 ] || { fail "no plots were drawn"; exit 1; }
imgs=$(grep -o '<img src="plots/[^"]*\.png"' "$res/report.html" | wc -l)
[ "$imgs" -eq "$pngs" ] || fail "report.html shows $imgs images, plots/ has $pngs PNGs"

# The page under test, with a checker appended: the SVGs become images too.
checker='<pre id="pb-result">pending</pre>
<script>
(function () {
  var links = document.querySelectorAll("a[href$=\".svg\"]");
  for (var i = 0; i < links.length; i++) {
    var img = document.createElement("img");
    img.src = links[i].getAttribute("href");
    img.className = "pb-svg";
    document.body.appendChild(img);
  }
  function blank(td) {
    var t = td.textContent.replace(/\s+/g, "");
    return t === "" || t === "-" || t === "\u2013";
  }
  /* the tables of a section: between its h2 and the next */
  function sectionTables(h2) {
    var out = [];
    for (var e = h2.nextElementSibling; e && e.tagName !== "H2"; e = e.nextElementSibling) {
      if (e.tagName === "TABLE") out.push(e);
      var inner = e.querySelectorAll ? e.querySelectorAll("table") : [];
      for (var k = 0; k < inner.length; k++) out.push(inner[k]);
    }
    return out;
  }
  function pageProblems() {
    var problems = [];
    var h2s = document.querySelectorAll("h2");
    if (!h2s.length || h2s[0].id !== "scorecard") problems.push("scorecard-not-first");
    var card = document.querySelector("table.scorecard");
    if (!card || card.rows.length < 2) problems.push("no-scorecard-rows");
    for (var h = 0; h < h2s.length; h++) {
      if (h2s[h].id.indexOf("exp-") !== 0) continue;
      var tables = sectionTables(h2s[h]);
      for (var t = 0; t < tables.length; t++) {
        var rows = tables[t].rows, heads = rows.length ? rows[0].cells : [];
        for (var c = 0; c < heads.length; c++) {
          var cells = 0, empty = 0;
          for (var r = 1; r < rows.length; r++) {
            if (rows[r].cells.length !== heads.length) continue; /* a spanning row */
            cells++;
            if (blank(rows[r].cells[c])) empty++;
          }
          if (cells && empty === cells)
            problems.push("empty-column:" + h2s[h].id + ":" + heads[c].textContent);
        }
        for (var r2 = 1; r2 < rows.length; r2++) {
          /* a facility and workload heading the rows under it holds no figure */
          if (rows[r2].className === "group") continue;
          var figures = 0;
          for (var c2 = 0; c2 < rows[r2].cells.length; c2++) figures += !blank(rows[r2].cells[c2]);
          if (!figures) problems.push("empty-row:" + h2s[h].id + ":" + r2);
        }
      }
    }
    var machine = document.getElementById("machine");
    var mt = machine ? sectionTables(machine) : [];
    var said = {};
    for (var m = 0; m < mt.length; m++)
      for (var r3 = 0; r3 < mt[m].rows.length; r3++) {
        var label = mt[m].rows[r3].cells[0].textContent;
        if (mt[m].rows[r3].cells.length > 1)
          said[label] = mt[m].rows[r3].cells[1].textContent.trim();
        if (/^[a-z0-9]+(_[a-z0-9]+)+$/.test(label)) problems.push("raw-key:" + label);
        if (mt[m].rows[r3].cells.length > 1 && blank(mt[m].rows[r3].cells[1]))
          problems.push("empty-machine-row:" + label);
      }
    // fields of another architecture on this machine (riscv fw counters 0 on x86)
    for (var l in said) {
      if (/^(RISC-V .|Sscofpmf|SBI firmware)/i.test(l) && said["RISC-V"] !== "yes")
        problems.push("other-architecture:" + l);
      if (/^Arm ./.test(l) && said["Arm"] !== "yes") problems.push("other-architecture:" + l);
      if (/^riscv/i.test(l)) problems.push("other-architecture:" + l);
    }
    /* with the words around it, so that a failure says where the figure was */
    var odd = /\b(nan|-?inf)\b/i.exec(document.body.innerText);
    if (odd)
      problems.push("nan-or-inf:[" + document.body.innerText.substr(Math.max(0, odd.index - 120),
                    odd[0].length + 160).replace(/\s+/g, "_") + "]");
    /* in a window 1400 px wide no table scrolls sideways: a scrolled table hid its last
     * columns, the overhead table its lost and throttles (1483 px in 1100) */
    var boxes = document.querySelectorAll("div.wide");
    for (var w = 0; w < boxes.length; w++)
      if (boxes[w].scrollWidth > boxes[w].clientWidth + 1) {
        var at = boxes[w].previousElementSibling;
        while (at && at.tagName !== "H2") at = at.previousElementSibling;
        problems.push("table-scrolls:" + (at ? at.id : "?") + ":" + boxes[w].scrollWidth + "px");
      }
    return problems;
  }
  window.addEventListener("load", function () {
    var all = document.images, bad = [], png = 0, svg = 0;
    for (var i = 0; i < all.length; i++) {
      var im = all[i];
      if (/\.svg$/.test(im.getAttribute("src"))) svg++; else png++;
      if (!im.complete || im.naturalWidth === 0) bad.push(im.getAttribute("src"));
    }
    var problems = pageProblems();
    document.getElementById("pb-result").textContent =
      "png=" + png + " svg=" + svg + " failed=" + bad.length + " " + bad.join(",") +
      " | problems=" + problems.length + " " + problems.join(" ");
  });
})();
</script>'
{
	sed '/<\/body>/,$d' "$res/report.html"
	printf '%s\n</body>\n</html>\n' "$checker"
} >"$res/check.html"

dom=$(timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$profile" --virtual-time-budget=10000 --window-size=1400,1000 --dump-dom \
	"file://$res/check.html" 2>"$work/chromium.log")
result=$(printf '%s' "$dom" | grep -o '<pre id="pb-result">[^<]*</pre>' | sed 's/<[^>]*>//g')
echo "chromium: $result"
case "$result" in
"png=$pngs svg=$pngs failed=0 "*) ;;
"") tail -5 "$work/chromium.log" >&2
    fail "chromium rendered no result (checker did not run)" ;;
*) fail "images did not all load: $result (expected png=$pngs svg=$pngs failed=0)" ;;
esac
case "$result" in
*"| problems=0 "*) ;;
*"| problems="*) fail "the page has what a reader trips on: ${result#*| }" ;;
esac

# The plots' data and scripts say what they show.
if ! python3 - "$res/plots" "$res/report.html" >"$work/plots.log" 2>&1 <<'EOF'
import glob, os, re, sys
plots, report = sys.argv[1], open(sys.argv[2], encoding="utf-8").read()
problems = []
for gp_path in sorted(glob.glob(os.path.join(plots, "*.gp"))):
    name = os.path.basename(gp_path)[:-3]
    if 'src="plots/%s.png"' % name not in report:
        continue  # a stale plot of an earlier drawing, not shown
    gp = open(gp_path, encoding="utf-8").read()
    series = []
    for block in open(gp_path[:-3] + ".dat", encoding="utf-8").read().split("\n\n\n"):
        ys = [float(l.split()[1]) for l in block.splitlines()
              if l and not l.startswith("#") and l.split()[1] != "nan"]
        if ys:
            series.append(ys)
    if not series:
        problems.append(name + ": no data")
        continue
    if all(max(s) == min(s) for s in series):
        problems.append(name + ": every series is constant, drawn anyway")
    pos = [y for s in series for y in s if y > 0]
    if pos and max(pos) / min(pos) > 100 and "set logscale y" not in gp and "set yrange" not in gp:
        problems.append(name + ": values span %.0fx on a linear axis" % (max(pos) / min(pos)))
    # a colour is one series', or one measured series' and its model's, dashed beside it
    styles = re.findall(r"\.dat' index \d+ using [^\n]*?linecolor rgb \"(#[0-9a-fA-F]{6})\"( dashtype 2)?", gp)
    plotted = len(re.findall(r"'[^']+\.dat' index", gp))
    if len(set(styles)) != plotted:
        problems.append(name + ": %d series, %d distinct styles" % (plotted, len(set(styles))))
    for m in re.finditer(r"period (\d+)(?!\d)(?! (ns|events?)\b)", gp):
        problems.append(name + ": a period without its unit: " + m.group(0))
    for label in re.findall(r'set xlabel "([^"]*)"', gp):
        if "period" in label and not re.search(r"\((ns|µs|events)", label):
            problems.append(name + ": period axis without its unit: " + label)
    if name.startswith("mode-") and re.search(r'set ylabel "accuracy', gp):
        problems.append(name + ": a share called accuracy")
print("\n".join(problems))
sys.exit(1 if problems else 0)
EOF
then
	fail "the plots do not say what they show: $(head -c 1500 "$work/plots.log")"
fi

# The report names the machine and every plot's title.
grep -q "<h2 id=\"machine\">" "$res/report.html" || fail "no machine section"
grep -q "id=\"exp-bias\"" "$res/report.html" || fail "no bias section"

if [ "$failures" -ne 0 ]; then
	echo "report_chromium: $failures failed"
	exit 1
fi
echo "report_chromium: every image of report.html loaded ($pngs PNG, $pngs SVG); the page and" \
	"the plots passed every check"
exit 0
