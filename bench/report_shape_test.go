package bench

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"
)

// TestCheckShape: a report from WriteJSON passes; each kind of drift the
// plots would trip over is caught and named.
func TestCheckShape(t *testing.T) {
	var good bytes.Buffer
	if err := sampleReport().WriteJSON(&good); err != nil {
		t.Fatal(err)
	}
	if err := CheckShape(good.Bytes(), "demo"); err != nil {
		t.Fatalf("WriteJSON output rejected: %v", err)
	}
	const disk = `"disk":{"name":"d"}`
	cases := []struct {
		name, json, want string
	}{
		{"wrong bench", `{"bench":"x",` + disk + `,"clock":"wall","rows":[{"a":1}]}`, `want "demo"`},
		{"bad clock", `{"bench":"demo",` + disk + `,"clock":"virtual","rows":[{"a":1}]}`, "clock"},
		{"no rows", `{"bench":"demo",` + disk + `,"clock":"wall","rows":[]}`, "no rows"},
		{"missing disk", `{"bench":"demo","clock":"wall","rows":[{"a":1}]}`, `missing top-level key "disk"`},
		{"extra key", `{"bench":"demo",` + disk + `,"clock":"wall","rows":[{"a":1}],"x":1}`, "unexpected"},
		{"order", `{"disk":{"name":"d"},"bench":"demo","clock":"wall","rows":[{"a":1}]}`, "out of order"},
		{"nested row", `{"bench":"demo",` + disk + `,"clock":"wall","rows":[{"a":{"b":1}}]}`, "not flat"},
		{"seconds", `{"bench":"demo",` + disk + `,"clock":"wall","rows":[{"mean_s":1}]}`, "in ms"},
		{"micros", `{"bench":"demo",` + disk + `,"clock":"wall","rows":[{"p50_us":1}]}`, "in ms"},
		{"unitless time", `{"bench":"demo",` + disk + `,"clock":"wall","rows":[{"latency":1}]}`, "without its unit"},
		{"camel", `{"bench":"demo",` + disk + `,"clock":"wall","rows":[{"meanMs":1}]}`, "snake_case"},
		{"param after metric", `{"bench":"demo",` + disk + `,"clock":"wall","rows":[{"mean_ms":1,"placement":"eager"}]}`, "parameters first"},
		{"unnamed disk", `{"bench":"demo","disk":{"rpm":1},"clock":"wall","rows":[{"a":1}]}`, "not a named model"},
		{"row without its disk", `{"bench":"demo","disk":{"a":{"name":"a"}},"clock":"wall","rows":[{"x":1}]}`, "not one of"},
		{"not an object", `[1]`, "not a JSON object"},
	}
	for _, c := range cases {
		err := CheckShape([]byte(c.json), "demo")
		if !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want ErrShape mentioning %q", c.name, err, c.want)
		}
	}
	ok := []string{
		`{"bench":"demo","disk":{"a":{"name":"a"},"b":{"name":"b"}},"clock":"simulated","rows":[{"disk":"a","x":1},{"disk":"b","x":2}]}`,
		`{"bench":"demo",` + disk + `,"clock":"wall","params":{"n":1},"rows":[{"target":"vlfs","ops_s":1,"mb_s":2,"p50_ms":3}],"notes":["n"]}`,
	}
	for _, j := range ok {
		if err := CheckShape([]byte(j), "demo"); err != nil {
			t.Errorf("%s: %v", j, err)
		}
	}
}

// TestReadReportRoundTrip: JSON read back prints the same table, with the
// columns in the benchmark's order.
func TestReadReportRoundTrip(t *testing.T) {
	r := sampleReport()
	var js, want, got bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	back, err := ReadReport(js.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WriteTable(&want); err != nil {
		t.Fatal(err)
	}
	if err := back.WriteTable(&got); err != nil {
		t.Fatal(err)
	}
	if sameTable(got.String()) != sameTable(want.String()) {
		t.Errorf("table after a round trip:\n%s\nwant:\n%s", got.String(), want.String())
	}
	if _, err := ReadReport([]byte(`{"rows":[1]}`)); !errors.Is(err, ErrShape) {
		t.Errorf("row that is not an object: %v", err)
	}
}

// sameTable normalises a table for comparison: JSON cannot tell 4002.0
// from 4002, so a float that is whole prints as an integer after a round
// trip ("4002.0000" -> "4002"), and the column widths follow.
func sameTable(s string) string {
	s = regexp.MustCompile(`(\d)\.0000\b`).ReplaceAllString(s, "$1")
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	return strings.Join(lines, "\n")
}
