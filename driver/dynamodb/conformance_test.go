package dynamodb_test

import (
	"testing"

	"github.com/dbarena/dbarena/driver/drivertest"
	"github.com/dbarena/dbarena/driver/dynamodb"
	"github.com/dbarena/dbarena/internal/testenv"
)

// envAddr holds the endpoint of a DynamoDB-API server for the tests
// (http://127.0.0.1:PORT of DynamoDB Local).
const envAddr = "DBARENA_TEST_DYNAMODB"

func TestConformance(t *testing.T) {
	endpoint := testenv.Addr(t, envAddr)
	drivertest.Run(t, drivertest.Options{
		Open: dynamodb.Open, Prefix: dynamodb.Prefix,
		Props: map[string]string{"dynamodb.endpoint": endpoint},
		// DynamoDB scans follow hash order; conditional writes make a
		// duplicate insert a CONFLICT.
		ScanOrdered: false, StrictInsert: true,
	})
}

func TestConformanceYCSBSemantics(t *testing.T) {
	// YCSB's own behaviour: puts and updates without conditions, and a
	// scan that starts after the start key.
	endpoint := testenv.Addr(t, envAddr)
	drivertest.Run(t, drivertest.Options{
		Open: dynamodb.Open, Prefix: dynamodb.Prefix,
		Props: map[string]string{"dynamodb.endpoint": endpoint,
			"dynamodb.conditionalwrites": "false", "dynamodb.inclusivescan": "false"},
		ScanOrdered: false, StrictInsert: false, Records: 300,
	})
}
