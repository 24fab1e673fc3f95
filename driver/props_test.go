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
