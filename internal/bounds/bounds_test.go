package bounds_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/bounds"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, size int) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(strings.Repeat("x", size)), 0o600))
		return p
	}
	for name, c := range map[string]struct {
		path    string
		limit   int64
		want    int
		tooBig  bool
		errPart string
	}{
		"under the limit":     {path: write("small", 10), limit: 16, want: 10},
		"exactly the limit":   {path: write("exact", 16), limit: 16, want: 16},
		"one byte over":       {path: write("over", 17), limit: 16, tooBig: true},
		"empty":               {path: write("empty", 0), limit: 16, want: 0},
		"device without size": {path: "/dev/zero", limit: 1 << 20, tooBig: true},
		"missing":             {path: filepath.Join(dir, "missing"), limit: 16, errPart: "no such file"},
		"directory":           {path: dir, limit: 16, errPart: "is a directory"},
	} {
		t.Run(name, func(t *testing.T) {
			b, err := bounds.ReadFile(c.path, c.limit)
			switch {
			case c.tooBig:
				var tl *bounds.TooLargeError
				require.True(t, errors.As(err, &tl), "%v", err)
				require.Equal(t, c.path, tl.Name)
				require.ErrorContains(t, err, c.path)
				require.ErrorContains(t, err, bounds.FormatBytes(c.limit)+" limit")
			case c.errPart != "":
				require.ErrorContains(t, err, c.errPart)
			default:
				require.NoError(t, err)
				require.Len(t, b, c.want)
			}
		})
	}
}

func TestNewReaderStopsAtTheLimit(t *testing.T) {
	r := bounds.NewReader(io.MultiReader(strings.NewReader("abc"), strings.NewReader("defg")), "stream", 5)
	b, err := io.ReadAll(r)
	require.ErrorContains(t, err, "stream: larger than the 5 B limit")
	require.Equal(t, "abcde", string(b), "the bytes within the limit are delivered")

	b, err = io.ReadAll(bounds.NewReader(strings.NewReader("abcde"), "stream", 5))
	require.NoError(t, err)
	require.Equal(t, "abcde", string(b))
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 5: "5 B", 1024: "1 KiB", 1536: "1536 B", bounds.MaxFileBytes: "64 MiB", 3 << 30: "3 GiB",
	} {
		require.Equal(t, want, bounds.FormatBytes(n))
	}
}
