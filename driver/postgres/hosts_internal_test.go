package postgres

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLoadersFillEveryHost: 3 loaders of 2 workers on 3 hosts, each
// numbering its workers from index x 2 (driver.Params.FirstWorker),
// send two workers to every host; numbered from 0 each, they would
// leave the third idle.
func TestLoadersFillEveryHost(t *testing.T) {
	per := make([]int, 3)
	for loader := range 3 {
		for w := range 2 {
			per[hostOf(loader*2+w, 3)]++
		}
	}
	require.Equal(t, []int{2, 2, 2}, per)
}
