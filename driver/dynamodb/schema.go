package dynamodb

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dbarena/dbarena/driver"
)

// tableWait bounds the wait for a table to become ACTIVE or to disappear.
// AWS documents creation and deletion as asynchronous, usually seconds;
// DynamoDB Local and Alternator finish at once.
const tableWait = 5 * time.Minute

// waitDelays are the waiters' polling bounds. The SDK's defaults (20 s
// minimum) suit a console, not a load phase waiting on a table that
// DynamoDB Local creates in milliseconds.
const (
	waitMinDelay = 500 * time.Millisecond
	waitMaxDelay = 5 * time.Second
)

// CreateSchema implements driver.SchemaManager: it creates the table with
// a string hash key named dynamodb.primarykey, with the configured billing
// mode, and waits until it is ACTIVE. An existing table is left as it is,
// but must have the expected key.
func (db *DB) CreateSchema(ctx context.Context, s driver.Schema) error {
	out, err := db.describe(ctx, s.Table)
	if err == nil {
		if err := db.checkKey(out.Table, s.Table); err != nil {
			return err
		}
		return db.waitActive(ctx, s.Table)
	}
	if apiCode(err) != codeNotFound {
		return db.schemaError("describe", s.Table, err)
	}
	in := &dynamodb.CreateTableInput{
		TableName: aws.String(s.Table),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(db.cfg.PrimaryKey), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(db.cfg.PrimaryKey), KeyType: types.KeyTypeHash},
		},
		BillingMode: db.cfg.BillingMode,
	}
	if db.cfg.BillingMode == types.BillingModeProvisioned {
		in.ProvisionedThroughput = &types.ProvisionedThroughput{
			ReadCapacityUnits: aws.Int64(db.cfg.RCU), WriteCapacityUnits: aws.Int64(db.cfg.WCU),
		}
	}
	// ResourceInUse: another loader created it first; wait for it alike.
	if _, err := db.client.CreateTable(ctx, in); err != nil && apiCode(err) != codeInUse {
		return db.schemaError("create", s.Table, err)
	}
	db.log.Info("dynamodb: created table", "table", s.Table, "key", db.cfg.PrimaryKey,
		"billing", db.cfg.BillingMode, "endpoint", db.cfg.Address())
	return db.waitActive(ctx, s.Table)
}

// DropSchema implements driver.SchemaManager: it deletes the table and
// waits until it is gone. A missing table is not an error.
func (db *DB) DropSchema(ctx context.Context, s driver.Schema) error {
	in := &dynamodb.DeleteTableInput{TableName: aws.String(s.Table)}
	_, err := db.client.DeleteTable(ctx, in)
	if apiCode(err) == codeInUse {
		// Still being created or updated: deletable once ACTIVE.
		if err := db.waitActive(ctx, s.Table); err != nil {
			return err
		}
		_, err = db.client.DeleteTable(ctx, in)
	}
	switch {
	case apiCode(err) == codeNotFound:
		return nil
	case err != nil:
		return db.schemaError("delete", s.Table, err)
	}
	w := dynamodb.NewTableNotExistsWaiter(db.client, func(o *dynamodb.TableNotExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = waitMinDelay, waitMaxDelay
	})
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(s.Table)}, tableWait); err != nil {
		return db.schemaError("wait for the deletion of", s.Table, err)
	}
	return nil
}

// CheckSchema implements driver.SchemaManager: the table must exist and
// have a string hash key named dynamodb.primarykey and no range key.
// DynamoDB has no columns, so fields are not checked.
func (db *DB) CheckSchema(ctx context.Context, s driver.Schema) error {
	out, err := db.describe(ctx, s.Table)
	if apiCode(err) == codeNotFound {
		return fmt.Errorf("dynamodb table %q does not exist at %s: run the load phase first (it creates the table), or check the table property",
			s.Table, db.cfg.Address())
	}
	if err != nil {
		return db.schemaError("describe", s.Table, err)
	}
	if out.Table.TableStatus == types.TableStatusDeleting {
		return fmt.Errorf("dynamodb table %q at %s is being deleted", s.Table, db.cfg.Address())
	}
	return db.checkKey(out.Table, s.Table)
}

func (db *DB) describe(ctx context.Context, table string) (*dynamodb.DescribeTableOutput, error) {
	return db.client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
}

// checkKey compares a table's key schema with the configured key: a
// mismatch would otherwise fail every operation with a ValidationException.
func (db *DB) checkKey(t *types.TableDescription, table string) error {
	var hash, rng string
	for _, k := range t.KeySchema {
		switch k.KeyType {
		case types.KeyTypeHash:
			hash = aws.ToString(k.AttributeName)
		case types.KeyTypeRange:
			rng = aws.ToString(k.AttributeName)
		}
	}
	want := db.cfg.PrimaryKey
	if hash != want {
		return fmt.Errorf("dynamodb table %q at %s has hash key %q, expected %q: set dynamodb.primarykey=%s (YCSB: dynamodb.primaryKey) or use another table",
			table, db.cfg.Address(), hash, want, hash)
	}
	if rng != "" {
		return fmt.Errorf("dynamodb table %q at %s has range key %q besides hash key %q: only hash-key tables (YCSB's primaryKeyType=HASH) are supported",
			table, db.cfg.Address(), rng, hash)
	}
	for _, a := range t.AttributeDefinitions {
		if aws.ToString(a.AttributeName) == want && a.AttributeType != types.ScalarAttributeTypeS {
			return fmt.Errorf("dynamodb table %q at %s has key %q of type %s, expected S (string) as YCSB writes it",
				table, db.cfg.Address(), want, a.AttributeType)
		}
	}
	return nil
}

// waitActive waits until the table is ACTIVE.
func (db *DB) waitActive(ctx context.Context, table string) error {
	w := dynamodb.NewTableExistsWaiter(db.client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = waitMinDelay, waitMaxDelay
	})
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)}, tableWait); err != nil {
		return db.schemaError("wait for", table, err)
	}
	return nil
}

func (db *DB) schemaError(op, table string, err error) error {
	return driver.Errorf(classOf(err), "dynamodb %s table %q at %s: %w", op, table, db.cfg.Address(), err)
}
