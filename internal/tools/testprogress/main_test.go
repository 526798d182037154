package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestRun: packages are printed in the order they finish (b before a,
// which is what plain go test's import-path order held back), a failed
// test's output and a package's panic are shown, passing tests' output is
// not, and any failure (a test, a panic, a build) makes exit 1.
func TestRun(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"start","Package":"m/a"}`,
		`{"Action":"start","Package":"m/b"}`,
		`{"Action":"run","Package":"m/b","Test":"TestOK"}`,
		`{"Action":"output","Package":"m/b","Test":"TestOK","Output":"=== RUN   TestOK\n"}`,
		`{"Action":"output","Package":"m/b","Test":"TestOK","Output":"    chatter\n"}`,
		`{"Action":"pass","Package":"m/b","Test":"TestOK","Elapsed":0.1}`,
		`{"Action":"output","Package":"m/b","Output":"PASS\n"}`,
		`{"Action":"pass","Package":"m/b","Elapsed":1.25}`,
		`{"Action":"output","Package":"m/a","Test":"TestBad","Output":"=== RUN   TestBad\n"}`,
		`{"Action":"output","Package":"m/a","Test":"TestBad","Output":"    a_test.go:9: got 1, want 2\n"}`,
		`{"Action":"output","Package":"m/a","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}`,
		`{"Action":"fail","Package":"m/a","Test":"TestBad","Elapsed":0}`,
		`{"Action":"output","Package":"m/a","Output":"FAIL\n"}`,
		`{"Action":"output","Package":"m/a","Output":"FAIL\tm/a\t61.040s\n"}`,
		`{"Action":"fail","Package":"m/a","Elapsed":61.04}`,
		`{"Action":"output","Package":"m/c","Test":"TestHang","Output":"=== RUN   TestHang\n"}`,
		`{"Action":"output","Package":"m/c","Output":"panic: test timed out after 10m0s\n"}`,
		`{"Action":"fail","Package":"m/c","Elapsed":600}`,
		`{"Action":"output","Package":"m/d","Output":"?   \tm/d\t[no test files]\n"}`,
		`{"Action":"skip","Package":"m/d","Elapsed":0}`,
		`{"ImportPath":"m/e [m/e.test]","Action":"build-output","Output":"e/x.go:1:1: syntax error\n"}`,
		`{"ImportPath":"m/e [m/e.test]","Action":"build-fail"}`,
		`go: some message`,
	}, "\n") + "\n"
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	now := func() time.Time { clock = clock.Add(90 * time.Second); return clock }
	if rc := run(strings.NewReader(in), &out, now); rc != 1 {
		t.Fatalf("exit %d, want 1", rc)
	}
	want := "ok  \tm/b\t1.2s\n" +
		"=== RUN   TestBad\n    a_test.go:9: got 1, want 2\n--- FAIL: TestBad (0.00s)\n" +
		"FAIL\tm/a\t61.0s\n" +
		"panic: test timed out after 10m0s\n" + "=== RUN   TestHang\n" + "FAIL\tm/c\t600.0s\n" +
		"?   \tm/d\t[no test files]\n" +
		"e/x.go:1:1: syntax error\n" +
		"go: some message\n" +
		"2 packages passed, 3 failed, in 1m30s\n"
	if out.String() != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	if rc := run(strings.NewReader(`{"Action":"pass","Package":"m/b","Elapsed":2}`+"\n"), &out, now); rc != 0 || out.String() != "ok  \tm/b\t2.0s\n1 packages passed, 0 failed, in 1m30s\n" {
		t.Fatalf("all passing: exit %d, %q", rc, out.String())
	}
}
