package workload_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/properties"
	"github.com/dbarena/dbarena/workload"
)

// TestLimits: every size that crashed or hung the process before it had
// a bound is refused with the property, the value and the limit.
func TestLimits(t *testing.T) {
	for name, c := range map[string]struct {
		props map[string]string
		want  []string // empty: accepted
	}{
		"fieldcount 1e8":           {props: map[string]string{"fieldcount": "100000000"}, want: []string{`"fieldcount"`, "100000000", "at most 10000 fields"}},
		"fieldcount 2^63":          {props: map[string]string{"fieldcount": "9223372036854775807"}, want: []string{`"fieldcount"`, "at most 10000"}},
		"fieldcount at the limit":  {props: map[string]string{"fieldcount": "10000", "fieldlength": "100"}},
		"fieldlength 1e12":         {props: map[string]string{"fieldlength": "1000000000000"}, want: []string{`"fieldlength"`, "at most 16777216 bytes (16 MiB) per field"}},
		"fieldlength 2^63":         {props: map[string]string{"fieldlength": "9223372036854775807"}, want: []string{`"fieldlength"`, "16 MiB"}},
		"record over 16 MiB":       {props: map[string]string{"fieldlength": "100000000", "fieldcount": "1"}, want: []string{"16 MiB"}},
		"record 100 x 1 MB":        {props: map[string]string{"fieldlength": "1000000", "fieldcount": "100"}, want: []string{"1000000 x fieldcount 100 = 100000000 bytes per record"}},
		"record of 16 MiB":         {props: map[string]string{"fieldlength": "1048576", "fieldcount": "16"}},
		"fieldnameprefix 9 MB":     {props: map[string]string{"fieldnameprefix": strings.Repeat("f", 9<<20)}, want: []string{`"fieldnameprefix"`, "9437184 bytes: at most 1000"}},
		"fieldnameprefix 1000 B":   {props: map[string]string{"fieldnameprefix": strings.Repeat("f", 1000)}},
		"zeropadding 1e9":          {props: map[string]string{"zeropadding": "1000000000"}, want: []string{`"zeropadding"`, "at most 1000 digits"}},
		"maxscanlength 2^63":       {props: map[string]string{"maxscanlength": "9223372036854775807"}, want: []string{`"maxscanlength"`, "at most 1000000 records per scan"}},
		"insertstart overflow":     {props: map[string]string{"recordcount": "0", "insertstart": "9223372036854775000", "insertcount": "10000"}, want: []string{`"insertcount"`, "key numbers: at most"}},
		"insert keys overflow":     {props: map[string]string{"operationcount": "9223372036854775807", "insertproportion": "1", "readproportion": "0", "updateproportion": "0"}, want: []string{`"operationcount"`, "2 x operationcount 9223372036854775807 x insertproportion 1"}},
		"latest over 1e12":         {props: map[string]string{"recordcount": "1000000000000", "requestdistribution": "latest"}, want: []string{`"recordcount"`, "requestdistribution=latest: at most 10000000000 records"}},
		"latest over 1e9":          {props: map[string]string{"recordcount": "1000000000", "requestdistribution": "latest"}},
		"zipfian 0.5 over 1e13":    {props: map[string]string{"recordcount": "10000000000000", "zipfianconstant": "0.5", "requestdistribution": "zipfian"}, want: []string{`"zipfianconstant"`, "at most 10000000000 keys"}},
		"zipfian 0.99 over 1e13":   {props: map[string]string{"recordcount": "10000000000000", "requestdistribution": "zipfian"}},
		"retry interval 1e300":     {props: map[string]string{"core_workload_insertion_retry_interval": "1e300"}, want: []string{"core_workload_insertion_retry_interval", "below 292 years"}},
		"retry interval Inf":       {props: map[string]string{"core_workload_insertion_retry_interval": "Inf"}, want: []string{"core_workload_insertion_retry_interval"}},
		"retry interval as Go":     {props: map[string]string{"core_workload_insertion_retry_interval": "500ms"}},
		"zipfianconstant NaN":      {props: map[string]string{"zipfianconstant": "NaN"}, want: []string{"zipfianconstant", "finite"}},
		"readproportion Inf":       {props: map[string]string{"readproportion": "Inf"}, want: []string{"readproportion", "finite"}},
		"hotspotdatafraction -Inf": {props: map[string]string{"hotspotdatafraction": "-Inf"}, want: []string{"hotspotdatafraction", "finite"}},
		"exponential.frac 0":       {props: map[string]string{"exponential.frac": "0"}, want: []string{"exponential.frac", "want a fraction in (0, 1]"}},
		"exponential.frac 1e-9":    {props: map[string]string{"exponential.frac": "1e-9"}},
		"exponential.frac 1":       {props: map[string]string{"exponential.frac": "1"}},
		"exponential.frac 1.01":    {props: map[string]string{"exponential.frac": "1.01"}, want: []string{"exponential.frac"}},
	} {
		t.Run(name, func(t *testing.T) {
			p := properties.New()
			p.Set("recordcount", "1000", properties.Source{File: "-p"})
			for k, v := range c.props {
				p.Set(k, v, properties.Source{File: "-p"})
			}
			// New is not called: the latest chooser over 1e9 records
			// would sum zeta for 10 s.
			_, _, err := workload.ParseConfig(p, nil)
			if len(c.want) == 0 {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			require.Contains(t, err.Error(), "-p: property")
			for _, w := range c.want {
				require.Contains(t, err.Error(), w)
			}
		})
	}
}
