package properties_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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
