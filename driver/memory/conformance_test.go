package memory_test

import (
	"context"
	"testing"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/driver/memory"
)

// TestConformance holds the in-memory store to the promises every real
// database driver is held to.
func TestConformance(t *testing.T) {
	db := memory.New()
	drivertest.Run(t, drivertest.Options{
		// One shared store: every Open of the suite must see the same data.
		Open:         func(_ context.Context, _ driver.Params) (driver.DB, error) { return db, nil },
		Prefix:       "memory",
		ScanOrdered:  true,
		StrictInsert: true,
	})
}
