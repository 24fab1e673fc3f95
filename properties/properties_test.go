package properties_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/bounds"
	"github.com/dbarena/dbarena/properties"
)

func TestParseSyntax(t *testing.T) {
	in := `# comment
! also a comment
a=1
b = 2
c: 3
d 4
   e=  spaced value
f=line\
    continued
g=tab\there
h=\u0041BC
i\=j=k
empty=
`
	s, err := properties.Parse(strings.NewReader(in), "x.properties")
	require.NoError(t, err)
	for k, want := range map[string]string{
		"a": "1", "b": "2", "c": "3", "d": "4", "e": "spaced value", "f": "linecontinued",
		"g": "tab\there", "h": "ABC", "i=j": "k", "empty": "",
	} {
		got, _, ok := s.Lookup(k)
		require.True(t, ok, k)
		require.Equal(t, want, got, k)
	}
	_, src, _ := s.Lookup("f")
	require.Equal(t, "x.properties:8", src.String(), "a continued value is sourced at its first line")
	require.Len(t, s.Keys(), 10)
}

func TestParseBadEscape(t *testing.T) {
	_, err := properties.Parse(strings.NewReader("\nk=\\u12"), "bad.properties")
	require.ErrorContains(t, err, "bad.properties:2")
}

func TestLoadPrecedence(t *testing.T) {
	dir := t.TempDir()
	f1, f2 := filepath.Join(dir, "one"), filepath.Join(dir, "two")
	require.NoError(t, os.WriteFile(f1, []byte("a=1\nb=1\nc=1\n"), 0o644))
	require.NoError(t, os.WriteFile(f2, []byte("b=2\nc=2\n"), 0o644))
	s, err := properties.Load([]string{f1, f2}, []string{"c=3", "d = 4"})
	require.NoError(t, err)
	for k, want := range map[string]string{"a": "1", "b": "2", "c": "3", "d": "4"} {
		got, _, _ := s.Lookup(k)
		require.Equal(t, want, got, k)
	}
	_, src, _ := s.Lookup("b")
	require.Equal(t, f2+":1", src.String())
	_, src, _ = s.Lookup("c")
	require.Equal(t, "-p", src.String())
}

func TestLoadErrors(t *testing.T) {
	_, err := properties.Load([]string{"/nonexistent/workload"}, nil)
	require.ErrorContains(t, err, "/nonexistent/workload")
	_, err = properties.Load(nil, []string{"noequals"})
	require.ErrorContains(t, err, `"noequals"`)
}

func TestTypedGetters(t *testing.T) {
	s := properties.New()
	src := properties.Source{File: "f", Line: 9}
	s.Set("n", "42", src)
	s.Set("x", "1.5", src)
	s.Set("b", "TRUE", src)
	s.Set("bad", "nope", src)
	n, err := s.Int64("n", 0)
	require.NoError(t, err)
	require.Equal(t, int64(42), n)
	x, err := s.Float("x", 0)
	require.NoError(t, err)
	require.Equal(t, 1.5, x)
	b, err := s.Bool("b", false)
	require.NoError(t, err)
	require.True(t, b)
	d, err := s.Int("missing", 7)
	require.NoError(t, err)
	require.Equal(t, 7, d)
	for _, get := range []func() error{
		func() error { _, err := s.Int64("bad", 0); return err },
		func() error { _, err := s.Float("bad", 0); return err },
		func() error { _, err := s.Bool("bad", false); return err },
	} {
		err := get()
		require.ErrorContains(t, err, "f:9")
		require.ErrorContains(t, err, `"bad"="nope"`)
	}
}

func TestTypedRejectsNonFinite(t *testing.T) {
	for name, c := range map[string]struct {
		value   string
		want    float64
		wantErr string
	}{
		"number":        {value: "0.5", want: 0.5},
		"exponent":      {value: "1e3", want: 1000},
		"NaN":           {value: "NaN", wantErr: `property "target"="NaN": want a finite number`},
		"nan":           {value: "nan", wantErr: "want a finite number"},
		"Inf":           {value: "Inf", wantErr: "want a finite number"},
		"-Infinity":     {value: "-Infinity", wantErr: "want a finite number"},
		"out of range":  {value: "1e400", wantErr: "want a finite number"},
		"not a number":  {value: "fast", wantErr: "want a finite number"},
		"spaces around": {value: " 2 ", want: 2},
	} {
		t.Run(name, func(t *testing.T) {
			s := properties.New()
			s.Set("target", c.value, properties.Source{File: "-p"})
			got, err := s.Float("target", 0)
			if c.wantErr != "" {
				require.ErrorContains(t, err, c.wantErr)
				require.ErrorContains(t, err, "-p: ")
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

func TestDuration(t *testing.T) {
	for name, c := range map[string]struct {
		value string
		want  time.Duration
		bad   bool
	}{
		"seconds":          {value: "30", want: 30 * time.Second},
		"fraction":         {value: "0.5", want: 500 * time.Millisecond},
		"go duration":      {value: "1m30s", want: 90 * time.Second},
		"zero":             {value: "0", want: 0},
		"negative seconds": {value: "-1", bad: true},
		"negative go":      {value: "-5s", bad: true},
		"NaN":              {value: "NaN", bad: true},
		"Inf":              {value: "Inf", bad: true},
		"overflow seconds": {value: "1e300", bad: true},
		"just past range":  {value: "9223372037", bad: true},
		"overflow go":      {value: "9999999999h", bad: true},
		"words":            {value: "soon", bad: true},
	} {
		t.Run(name, func(t *testing.T) {
			s := properties.New()
			s.Set("maxexecutiontime", c.value, properties.Source{File: "w", Line: 3})
			got, err := s.Duration("maxexecutiontime", time.Minute)
			if c.bad {
				require.ErrorContains(t, err, `w:3: property "maxexecutiontime"=`)
				require.ErrorContains(t, err, "below 292 years")
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
	got, err := properties.New().Duration("maxexecutiontime", time.Minute)
	require.NoError(t, err)
	require.Equal(t, time.Minute, got, "default when unset")
}

func TestParseFileBounds(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.properties")
	// Short lines, so that the file limit, not the line limit, trips.
	require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte("a=1\n"), bounds.MaxFileBytes/4+1), 0o600))
	_, err := properties.ParseFile(big)
	require.ErrorContains(t, err, big+": larger than the 64 MiB limit")

	_, err = properties.ParseFile("/dev/zero")
	require.ErrorContains(t, err, "/dev/zero:1: line longer than the 16 MiB limit")
}

func TestParseManyContinuedLines(t *testing.T) {
	in := "a=" + strings.Repeat("x\\\n", 300_000) + "end\n"
	start := time.Now()
	s, err := properties.Parse(strings.NewReader(in), "long.properties")
	require.NoError(t, err)
	require.Less(t, time.Since(start), 2*time.Second, "quadratic joining took 22 s")
	v, _, _ := s.Lookup("a")
	require.Equal(t, strings.Repeat("x", 300_000)+"end", v)

	_, err = properties.Parse(strings.NewReader("a="+strings.Repeat(strings.Repeat("x", 1<<20)+"\\\n", 17)), "long.properties")
	require.ErrorContains(t, err, "long.properties:1: line continued past the 16 MiB limit of a line")
}
