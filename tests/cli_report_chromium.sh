#!/bin/bash
# The report as a reader sees it: a short real suite writes a results folder with plots and
# report.html; headless Chromium opens a copy of the page with a script that, once everything
# has loaded, writes into the page how many images there are and which did not load (the
# report's PNGs, and each linked SVG shown as an image too). Every image must load.
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
trap 'rm -rf "$work" "$profile"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# A real suite, small: several experiments so that every kind of plot is drawn.
"$PB_BIN" run accuracy interval bias multi mode overhead shadow --facility timer:cpu-clock \
	--facility sw:page-faults --runs 2 --threads 1 --target-ms 10 --quiet \
	--out "$work/res" >"$work/run.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
	cat "$work/run.log" >&2
	if [ "$rc" -eq 3 ]; then
		echo "SKIP: no sampling facility is available here to make a results folder"
		exit 77
	fi
	fail "pesbench run failed (exit $rc)"
	exit 1
fi
res="$work/res"
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
  window.addEventListener("load", function () {
    var all = document.images, bad = [], png = 0, svg = 0;
    for (var i = 0; i < all.length; i++) {
      var im = all[i];
      if (/\.svg$/.test(im.getAttribute("src"))) svg++; else png++;
      if (!im.complete || im.naturalWidth === 0) bad.push(im.getAttribute("src"));
    }
    document.getElementById("pb-result").textContent =
      "png=" + png + " svg=" + svg + " failed=" + bad.length + " " + bad.join(",");
  });
})();
</script>'
{
	sed '/<\/body>/,$d' "$res/report.html"
	printf '%s\n</body>\n</html>\n' "$checker"
} >"$res/check.html"

dom=$(timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$profile" --virtual-time-budget=10000 --dump-dom \
	"file://$res/check.html" 2>"$work/chromium.log")
result=$(printf '%s' "$dom" | grep -o '<pre id="pb-result">[^<]*</pre>' | sed 's/<[^>]*>//g')
echo "chromium: $result"
case "$result" in
"png=$pngs svg=$pngs failed=0 "*) ;;
"") tail -5 "$work/chromium.log" >&2
    fail "chromium rendered no result (checker did not run)" ;;
*) fail "images did not all load: $result (expected png=$pngs svg=$pngs failed=0)" ;;
esac

# The report names the machine and every plot's title.
grep -q "<h2 id=\"machine\">" "$res/report.html" || fail "no machine section"
grep -q "id=\"exp-bias\"" "$res/report.html" || fail "no bias section"

if [ "$failures" -ne 0 ]; then
	echo "report_chromium: $failures failed"
	exit 1
fi
echo "report_chromium: every image of report.html loaded ($pngs PNG, $pngs SVG)"
exit 0
