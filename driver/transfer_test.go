package driver_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
)

// TestTransferApply checks the transfer's rule on both sides of each
// bound: the floor (a payer left exactly on it is allowed, one unit
// below is declined), the receiver's overflow, a transfer to itself, a
// balance that is no integer, and a locking read that found one account.
func TestTransferApply(t *testing.T) {
	tr := driver.Transfer{From: "a", To: "b", Field: "field0", Amount: 60, Floor: 10}
	f, g, err := tr.Apply([]byte("70"), []byte("5"))
	require.NoError(t, err)
	require.Equal(t, []int64{10, 65}, []int64{f, g}, "left exactly on the floor")
	_, _, err = tr.Apply([]byte("69"), []byte("5"))
	require.ErrorIs(t, err, driver.ErrDeclined, "one unit below the floor")

	_, _, err = tr.Apply([]byte("100"), []byte(strconv.FormatInt(math.MaxInt64-60, 10)))
	require.NoError(t, err, "the receiver reaches MaxInt64 exactly")
	_, _, err = tr.Apply([]byte("100"), []byte(strconv.FormatInt(math.MaxInt64-59, 10)))
	require.Equal(t, driver.ClassError, driver.Classify(err), "one more overflows")

	_, _, err = tr.Apply([]byte("7O"), []byte("5"))
	require.Equal(t, driver.ClassError, driver.Classify(err))
	require.ErrorContains(t, err, "not an integer")

	self := tr
	self.To = "a"
	_, _, err = self.Apply([]byte("70"), []byte("70"))
	require.Equal(t, driver.ClassBadRequest, driver.Classify(err))

	var l driver.Locked
	l.Add(tr, "b", []byte("5"))
	_, _, err = l.Apply(tr)
	require.ErrorIs(t, err, driver.ErrNotFound, "one of two accounts read")
	l.Add(tr, "a", []byte("70"))
	f, g, err = l.Apply(tr)
	require.NoError(t, err)
	require.Equal(t, []int64{10, 65}, []int64{f, g}, "rows in any order")
}
