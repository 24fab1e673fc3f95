package driver_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
)

func TestPropsDuration(t *testing.T) {
	for name, c := range map[string]struct {
		value string
		want  time.Duration
		bad   bool
	}{
		"milliseconds":      {value: "500", want: 500 * time.Millisecond},
		"go duration":       {value: "5s", want: 5 * time.Second},
		"largest millis":    {value: "9223372036854", want: 9223372036854 * time.Millisecond},
		"millis past range": {value: "9223372036855", bad: true},
		"max int64 millis":  {value: "9223372036854775807", bad: true},
		"negative":          {value: "-5s", bad: true},
		"not a duration":    {value: "soon", bad: true},
	} {
		t.Run(name, func(t *testing.T) {
			p := driver.NewProps("x", map[string]string{"x.timeout": c.value})
			got, err := p.Duration("timeout", time.Second)
			if c.bad {
				require.ErrorContains(t, err, `x.timeout="`+c.value+`": want a duration`)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

// TestAliases: a setting given under a YCSB binding's name is read under
// the driver's, the same value under both names is fine, two values
// conflict, and an error about the driver's name says which name the
// user wrote.
func TestAliases(t *testing.T) {
	aliases := []driver.Alias{{Theirs: "as.timeout", Ours: "timeout"}, {Theirs: "x.connectMax", Ours: "pool"}}
	p, err := driver.NewPropsAliased("x", map[string]string{"as.timeout": "5", "x.pool": "3", "x.connectMax": " 3"}, aliases)
	require.NoError(t, err)
	d, err := p.Duration("timeout", 0)
	require.NoError(t, err)
	require.Equal(t, 5*time.Millisecond, d)

	_, err = p.Int("timeout", 0, 10)
	require.EqualError(t, p.GivenAs(err), `x.timeout="5": want an integer >= 10 (as.timeout is read as x.timeout)`)
	require.NoError(t, p.GivenAs(nil))
	plain := driver.NewProps("x", map[string]string{"x.timeout": "5"})
	_, err = plain.Int("timeout", 0, 10)
	require.EqualError(t, plain.GivenAs(err), `x.timeout="5": want an integer >= 10`, "written under the driver's own name")

	_, err = driver.NewPropsAliased("x", map[string]string{"x.connectMax": "4", "x.pool": "3"}, aliases)
	require.EqualError(t, err, `x.connectMax="4" and x.pool="3": both set the same thing; keep one`)
}

// TestHostList: hosts get the default port, their own port is kept,
// IPv6 works both ways, and a bad port or an empty list names the key.
func TestHostList(t *testing.T) {
	hosts, err := driver.HostList("k", " a, b:9, ::1 ,[::2]:8,", 7)
	require.NoError(t, err)
	require.Equal(t, []string{"a:7", "b:9", "[::1]:7", "[::2]:8"}, hosts)
	for list, want := range map[string]string{
		"a:0": `k="a:0": "a:0" is not host or host:port`,
		"a:x": `k="a:x": "a:x" is not host or host:port`,
		":9":  `k=":9": ":9" is not host or host:port`,
		" , ": `k=" , ": want at least one host, comma-separated, each host or host:port`,
	} {
		_, err := driver.HostList("k", list, 7)
		require.EqualError(t, err, want, list)
	}
}
