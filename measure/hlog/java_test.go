package hlog

// These tests run the official Java HdrHistogram tools over the logs this
// package writes, and read logs the Java writer wrote. They need java on the
// PATH and the HdrHistogram jar:
//
//	export DBARENA_HDR_JAR="$(scripts/fetch-hdrhistogram-jar)"
//	go test ./measure/hlog/

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testenv"
)

const processorClass = "org.HdrHistogram.HistogramLogProcessor"

// hdrJar returns $DBARENA_HDR_JAR. Unset, it skips on a laptop but fails
// under CI, where a skip would hide a broken install step.
func hdrJar(t *testing.T) string {
	t.Helper()
	jar := os.Getenv("DBARENA_HDR_JAR")
	if jar == "" {
		testenv.Missing(t, `DBARENA_HDR_JAR unset; export DBARENA_HDR_JAR="$(scripts/fetch-hdrhistogram-jar)" to check against the Java tools`)
	}
	_, err := os.Stat(jar)
	require.NoError(t, err, "DBARENA_HDR_JAR")
	_, err = exec.LookPath("java")
	require.NoError(t, err, "DBARENA_HDR_JAR is set but java is not on the PATH")
	return jar
}

// runJava runs java with the jar on the class path and returns its stdout.
// A non-zero exit or anything on stderr fails the test: HistogramLogProcessor
// reports malformed lines there.
func runJava(t *testing.T, jar string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "java", append([]string{"-cp", jar}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, err, "java %s\nstderr:\n%s", strings.Join(args, " "), stderr.String())
	for line := range strings.Lines(stderr.String()) {
		// The JVM announces JAVA_TOOL_OPTIONS and the like on stderr.
		if !strings.HasPrefix(line, "Picked up ") {
			require.Failf(t, "java wrote to stderr", "java %s\n%s", strings.Join(args, " "), stderr.String())
		}
	}
	return stdout.String()
}

// fixtureInterval is one line of the log the Java tools read.
type fixtureInterval struct {
	tag    string
	offset time.Duration // start after testStart; every interval lasts 1 s
	h      *hdrhistogram.Histogram
}

// writeFixture writes 5 one-second intervals of READ and UPDATE plus an
// untagged line every other second; READ has a 2.5 s outlier at second 2.
func writeFixture(t *testing.T, path string) []fixtureInterval {
	t.Helper()
	var ivs []fixtureInterval
	for i := range int64(5) {
		read := micros(1, 10_000)
		if i == 2 {
			read = append(read, int64(2500*time.Millisecond))
		}
		off := time.Duration(i) * time.Second
		ivs = append(ivs,
			fixtureInterval{"READ", off, latencyHistogram(t, read...)},
			fixtureInterval{"UPDATE", off, latencyHistogram(t, micros(100*(i+1), 5000+1000*i)...)})
		if i%2 == 0 {
			ivs = append(ivs, fixtureInterval{"", off, latencyHistogram(t, micros(50, 60+i)...)})
		}
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, testStart, "[dbarena hlog java_test]")
	require.NoError(t, err)
	for _, iv := range ivs {
		start := testStart.Add(iv.offset)
		require.NoError(t, w.WriteInterval(iv.tag, start, start.Add(time.Second), iv.h))
	}
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	return ivs
}

// csvRows returns the data rows of a CSV file written by
// HistogramLogProcessor, leaving out "#" comments and the legend.
func csvRows(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && line[0] != '#' && line[0] != '"' {
			rows = append(rows, strings.Split(line, ","))
		}
	}
	require.NoError(t, sc.Err())
	return rows
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err)
	return v
}

// requireMillis checks a value Java printed in milliseconds with %.3f
// against Go's nanoseconds.
func requireMillis(t *testing.T, goNanos int64, javaMillis string, what string) {
	t.Helper()
	require.InDelta(t, float64(goNanos)/MaxValueUnitRatio, num(t, javaMillis), 0.0005+1e-9, what)
}

// javaPercentile returns the value Java's getValueAtPercentile reports for h:
// the top of the bucket holding the ceil(p% of the count)th value. Go's
// ValueAtPercentile rounds the rank to the nearest instead, which for small
// counts lands on a neighbouring value; using Java's rank on Go's buckets
// makes the comparison exact.
func javaPercentile(h *hdrhistogram.Histogram, p float64) int64 {
	rank := int64(math.Ceil(math.Nextafter(p, math.Inf(-1)) * float64(h.TotalCount()) / 100))
	rank = max(rank, 1)
	var seen int64
	for _, bar := range h.Distribution() {
		if seen += bar.Count; seen >= rank {
			return bar.To
		}
	}
	return 0
}

// TestJavaProcessorReadsOurLog runs HistogramLogProcessor per tag and checks
// every interval row and the overall distribution against the Go histograms.
func TestJavaProcessorReadsOurLog(t *testing.T) {
	jar := hdrJar(t)
	dir := t.TempDir()
	logPath := filepath.Join(dir, "run.hlog")
	ivs := writeFixture(t, logPath)

	for _, tag := range []string{"READ", "UPDATE", ""} {
		t.Run(fmt.Sprintf("tag=%q", tag), func(t *testing.T) {
			out := filepath.Join(dir, "out-"+tag)
			args := []string{processorClass, "-i", logPath, "-o", out, "-csv"}
			if tag != "" {
				args = append(args, "-tag", tag)
			}
			runJava(t, jar, args...)

			rows := csvRows(t, out)
			total := latencyHistogram(t)
			var n int
			for _, iv := range ivs {
				if iv.tag != tag {
					continue
				}
				require.Less(t, n, len(rows), "Java read fewer intervals than written")
				row := rows[n]
				n++
				total.Merge(iv.h)
				// Timestamp,Int_Count,Int_50%,Int_90%,Int_Max,Total_Count,
				// Total_50%,Total_90%,Total_99%,Total_99.9%,Total_99.99%,Total_Max
				require.Len(t, row, 12)
				require.InDelta(t, (iv.offset + time.Second).Seconds(), num(t, row[0]), 1e-9, "interval end")
				require.Equal(t, strconv.FormatInt(iv.h.TotalCount(), 10), row[1], "interval count")
				requireMillis(t, javaPercentile(iv.h, 50), row[2], "Int_50%")
				requireMillis(t, javaPercentile(iv.h, 90), row[3], "Int_90%")
				requireMillis(t, iv.h.Max(), row[4], "Int_Max")
				require.Equal(t, strconv.FormatInt(total.TotalCount(), 10), row[5], "total count")
				for i, p := range []float64{50, 90, 99, 99.9, 99.99} {
					requireMillis(t, javaPercentile(total, p), row[6+i], fmt.Sprintf("Total_%g%%", p))
				}
				requireMillis(t, total.Max(), row[11], "Total_Max")
			}
			require.Len(t, rows, n, "Java read more intervals than written")

			// The .hgrm percentile distribution ends with the 100th
			// percentile: the overall maximum and total count.
			hgrm := csvRows(t, out+".hgrm")
			require.NotEmpty(t, hgrm)
			last := hgrm[len(hgrm)-1]
			requireMillis(t, total.Max(), last[0], "hgrm max")
			require.Equal(t, 1.0, num(t, last[1]), "hgrm last percentile")
			require.Equal(t, strconv.FormatInt(total.TotalCount(), 10), last[2], "hgrm total count")
		})
	}
}

func TestJavaProcessorTagsAndRange(t *testing.T) {
	jar := hdrJar(t)
	dir := t.TempDir()
	logPath := filepath.Join(dir, "run.hlog")
	ivs := writeFixture(t, logPath)

	out := runJava(t, jar, processorClass, "-i", logPath, "-listtags")
	require.Equal(t, "Tags found in input file:\n[NO TAG (default)]\nREAD\nUPDATE\n", out)

	// -start and -end are seconds after StartTime: intervals starting at
	// 2 s and 3 s are in [1.5, 3.5]; the 2.5 s outlier is in the first.
	rangeOut := filepath.Join(dir, "range")
	runJava(t, jar, processorClass, "-i", logPath, "-o", rangeOut, "-csv", "-tag", "READ", "-start", "1.5", "-end", "3.5")
	rows := csvRows(t, rangeOut)
	require.Len(t, rows, 2)
	require.Equal(t, "3.000", rows[0][0])
	require.Equal(t, "4.000", rows[1][0])
	var outlier *hdrhistogram.Histogram
	for _, iv := range ivs {
		if iv.tag == "READ" && iv.offset == 2*time.Second {
			outlier = iv.h
		}
	}
	require.Equal(t, strconv.FormatInt(outlier.TotalCount(), 10), rows[0][1])
	requireMillis(t, outlier.Max(), rows[1][11], "Total_Max with outlier")
	require.Greater(t, num(t, rows[1][11]), 2500.0, "Total_Max with outlier")
}

// TestJavaCopiesOurLog has the Java reader decode every interval and the Java
// writer write them again, then compares the copy bucket by bucket.
func TestJavaCopiesOurLog(t *testing.T) {
	jar := hdrJar(t)
	dir := t.TempDir()
	logPath, copyPath := filepath.Join(dir, "run.hlog"), filepath.Join(dir, "copy.hlog")
	ivs := writeFixture(t, logPath)

	out := runJava(t, jar, filepath.Join("testdata", "HlogTool.java"), "copy", logPath, copyPath)
	require.Equal(t, strconv.Itoa(len(ivs)), strings.TrimSpace(out), "intervals Java read")

	f, err := os.Open(copyPath)
	require.NoError(t, err)
	defer f.Close()
	r := NewReader(f)
	for i, want := range ivs {
		got, err := r.Next()
		require.NoError(t, err, "interval %d", i)
		require.Equal(t, want.tag, got.Tag)
		require.True(t, testStart.Add(want.offset).Equal(got.Start), "interval %d start %s", i, got.Start)
		require.Equal(t, time.Second, got.Length)
		require.True(t, want.h.Equals(denseLike(t, want.h, got.Histogram)), "interval %d (%s): histogram changed by Java's round trip", i, want.tag)
	}
	_, err = r.Next()
	require.ErrorIs(t, err, io.EOF)
}

// TestReaderReadsJavaLog reads a log the Java HistogramLogWriter wrote.
func TestReaderReadsJavaLog(t *testing.T) {
	jar := hdrJar(t)
	path := filepath.Join(t.TempDir(), "java.hlog")
	runJava(t, jar, filepath.Join("testdata", "HlogTool.java"), "gen", path)

	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r := NewReader(f)
	for i := range int64(4) {
		got, err := r.Next()
		require.NoError(t, err, "interval %d", i)
		want := latencyHistogram(t, micros(1, 1000*(i+1))...)
		wantTag := map[bool]string{true: "READ", false: ""}[i%2 == 0]
		require.Equal(t, wantTag, got.Tag)
		require.True(t, testStart.Add(time.Duration(i)*time.Second).Equal(got.Start), "start %s", got.Start)
		require.Equal(t, time.Second, got.Length)
		require.Equal(t, want.TotalCount(), got.Histogram.TotalCount())
		require.True(t, want.Equals(denseLike(t, want, got.Histogram)), "interval %d histogram", i)
		require.InDelta(t, float64(want.Max())/MaxValueUnitRatio, got.Max, 0.0005)
	}
	_, err = r.Next()
	require.ErrorIs(t, err, io.EOF)
	start, ok := r.StartTime()
	require.True(t, ok)
	require.True(t, testStart.Equal(start), "StartTime %s", start)
}
