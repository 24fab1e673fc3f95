package dynamodb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awsddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/dynamodb"
	"github.com/dbarena/dbarena/internal/testenv"
	"github.com/dbarena/dbarena/record"
)

// envAddr holds the endpoint of a DynamoDB-API server for the tests
// (http://127.0.0.1:PORT of DynamoDB Local).
const envAddr = "DBARENA_TEST_DYNAMODB"

// localTable returns a fresh table name, so that tests sharing a server
// do not collide.
func localTable(prefix string) string {
	return fmt.Sprintf("%s_%d", prefix, time.Now().UnixNano()%1_000_000_000)
}

// openLocal opens the driver against the test server with a fresh table,
// created, and dropped when the test ends.
func openLocal(t *testing.T, props ...string) (*dynamodb.DB, driver.Schema) {
	t.Helper()
	p := map[string]string{"dynamodb.endpoint": testenv.Addr(t, envAddr)}
	for i := 0; i+1 < len(props); i += 2 {
		p[props[i]] = props[i+1]
	}
	ctx := context.Background()
	db, err := dynamodb.Open(ctx, driver.Params{Props: p, Workers: 1})
	require.NoError(t, err)
	schema := driver.Schema{Table: localTable("dbarena_t"), Fields: []string{"field0"}}
	require.NoError(t, db.(*dynamodb.DB).CreateSchema(ctx, schema))
	t.Cleanup(func() {
		_ = db.(*dynamodb.DB).DropSchema(context.Background(), schema)
		_ = db.Close()
	})
	return db.(*dynamodb.DB), schema
}

// rawClient is a plain SDK client for the test server, to look at what
// the driver created.
func rawClient(t *testing.T) *awsddb.Client {
	return awsddb.New(awsddb.Options{
		BaseEndpoint: aws.String(testenv.Addr(t, envAddr)), Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("x", "x", ""),
	})
}

// ycsbRecord is YCSB's default record: 10 fields of 100 bytes, an item of
// about 1.1 KB with names and key, so 2 write units and, rounded up to
// 4 KB, 1 read unit strongly consistent or 0.5 eventually.
func ycsbRecord() record.Record {
	var r record.Record
	for i := 0; i < 10; i++ {
		r = append(r, record.Field{Name: fmt.Sprintf("field%d", i), Value: []byte(strings.Repeat("x", 100))})
	}
	return r
}

func TestConsumedCapacity(t *testing.T) {
	for _, tc := range []struct {
		consistent string
		readUnits  float64
	}{{"false", 0.5}, {"true", 1}} {
		t.Run("consistentreads="+tc.consistent, func(t *testing.T) {
			db, schema := openLocal(t, "dynamodb.consistentreads", tc.consistent)
			sess := session(t, db)
			ctx := context.Background()
			require.NoError(t, sess.Insert(ctx, schema.Table, "user1", ycsbRecord()))
			require.NoError(t, sess.Insert(ctx, schema.Table, "user2", ycsbRecord()[:1]))
			_, err := sess.Read(ctx, schema.Table, "user1", nil, nil)
			require.NoError(t, err)
			require.NoError(t, sess.Update(ctx, schema.Table, "user1", ycsbRecord()[:1]))
			require.NoError(t, sess.Delete(ctx, schema.Table, "user2"))
			c := counters(db)
			t.Logf("DynamoDB Local reports: rcu=%v wcu=%v", c["dynamodb.consumed_rcu"], c["dynamodb.consumed_wcu"])
			// 2 (1.1 KB put) + 1 (small put) + 2 (update of a 1.1 KB item) + 1 (delete of a small item).
			require.EqualValues(t, 6, c["dynamodb.consumed_wcu"])
			require.EqualValues(t, tc.readUnits, c["dynamodb.consumed_rcu"], "strongly consistent reads cost twice")
			require.Zero(t, c["dynamodb.throttled"])
		})
	}
}

func TestProvisionedTable(t *testing.T) {
	db, schema := openLocal(t, "dynamodb.billingmode", "PROVISIONED", "dynamodb.rcu", "7", "dynamodb.wcu", "3")
	require.NoError(t, db.CheckSchema(context.Background(), schema))
	out, err := rawClient(t).DescribeTable(context.Background(), &awsddb.DescribeTableInput{TableName: aws.String(schema.Table)})
	require.NoError(t, err)
	require.Equal(t, types.TableStatusActive, out.Table.TableStatus)
	require.EqualValues(t, 7, aws.ToInt64(out.Table.ProvisionedThroughput.ReadCapacityUnits))
	require.EqualValues(t, 3, aws.ToInt64(out.Table.ProvisionedThroughput.WriteCapacityUnits))
	require.Equal(t, "YCSB_KEY", aws.ToString(out.Table.KeySchema[0].AttributeName))
	require.Equal(t, types.ScalarAttributeTypeS, out.Table.AttributeDefinitions[0].AttributeType)
}

func TestWrongKeyAttribute(t *testing.T) {
	_, schema := openLocal(t, "dynamodb.primarykey", "firstname")
	db, err := dynamodb.Open(context.Background(), driver.Params{Props: map[string]string{
		"dynamodb.endpoint": testenv.Addr(t, envAddr)}, Workers: 1})
	require.NoError(t, err)
	defer db.Close()
	sm := db.(driver.SchemaManager)
	for _, err := range []error{sm.CheckSchema(context.Background(), schema), sm.CreateSchema(context.Background(), schema)} {
		require.Error(t, err)
		require.Contains(t, err.Error(), `hash key "firstname", expected "YCSB_KEY"`)
		require.Contains(t, err.Error(), "dynamodb.primarykey=firstname")
	}
}

func TestMissingTable(t *testing.T) {
	endpoint := testenv.Addr(t, envAddr)
	db, err := dynamodb.Open(context.Background(), driver.Params{Props: map[string]string{
		"dynamodb.endpoint": endpoint}, Workers: 1})
	require.NoError(t, err, "a missing table is not an error at open: the load creates it")
	defer db.Close()
	table := localTable("dbarena_missing")
	err = db.(driver.SchemaManager).CheckSchema(context.Background(), driver.Schema{Table: table})
	require.ErrorContains(t, err, table)
	require.ErrorContains(t, err, endpoint)
	_, err = session(t, db).Read(context.Background(), table, "user1", nil, nil)
	require.ErrorContains(t, err, fmt.Sprintf("table %q does not exist at %s", table, endpoint))
}

// TestSumBalances: the ledger's snapshot reads every account's balance
// in one transaction, costs nothing on the trial's bill, names a
// balance that is not an integer, and refuses a ledger of more
// accounts than one transaction reads (100) as unsupported.
func TestSumBalances(t *testing.T) {
	db, schema := openLocal(t)
	ctx := context.Background()
	sess, err := db.Session(ctx, 0)
	require.NoError(t, err)
	defer sess.Close()
	for i := range 100 {
		require.NoError(t, sess.Insert(ctx, schema.Table, fmt.Sprintf("user%d", i), record.Record{{Name: "field0", Value: []byte("100")}}))
	}
	require.NoError(t, sess.Update(ctx, schema.Table, "user7", record.Record{{Name: "field0", Value: []byte("3")}}))
	before := db.Counters()
	sum, err := db.SumBalances(ctx, schema.Table, "field0", 10)
	require.NoError(t, err)
	require.Equal(t, driver.LedgerSum{Accounts: 100, Total: 99*100 + 3, BelowFloor: 1}, sum)
	require.Equal(t, before, db.Counters(), "the snapshot stays out of the bill")

	require.NoError(t, sess.Update(ctx, schema.Table, "user8", record.Record{{Name: "field0", Value: []byte("1e3")}}))
	_, err = db.SumBalances(ctx, schema.Table, "field0", 10)
	require.ErrorContains(t, err, "the balance field0 of user8 is missing or not an integer")

	require.NoError(t, sess.Insert(ctx, schema.Table, "user100", record.Record{{Name: "field0", Value: []byte("100")}}))
	_, err = db.SumBalances(ctx, schema.Table, "field0", 10)
	require.Equal(t, driver.ClassUnsupported, driver.Classify(err), "%v", err)
	require.ErrorContains(t, err, "at most 100 items")
}
