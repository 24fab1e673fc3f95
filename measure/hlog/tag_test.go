package hlog_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/measure/hlog"
)

func TestTagRoundTrip(t *testing.T) {
	for s, want := range map[string]hlog.Tag{
		"READ":                 {Op: "READ"},
		"Intended-READ":        {Kind: hlog.Intended, Op: "READ"},
		"FAILED-UPDATE":        {Kind: hlog.Failed, Op: "UPDATE"},
		"WARMUP-Intended-SCAN": {Warmup: true, Kind: hlog.Intended, Op: "SCAN"},
		"WARMUP-FAILED-INSERT": {Warmup: true, Kind: hlog.Failed, Op: "INSERT"},
		"PACING":               {Kind: hlog.Pacing},
		"WARMUP-PACING":        {Warmup: true, Kind: hlog.Pacing},
		"READ-MODIFY-WRITE":    {Op: "READ-MODIFY-WRITE"},
	} {
		got := hlog.ParseTag(s)
		require.Equal(t, want, got, s)
		require.Equal(t, s, got.String())
	}
}
