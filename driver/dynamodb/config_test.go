package dynamodb_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver/dynamodb"
)

func TestDefaults(t *testing.T) {
	c, err := dynamodb.ParseConfig(map[string]string{}, 16)
	require.NoError(t, err)
	require.Equal(t, dynamodb.Config{
		Region: "us-east-1", PrimaryKey: "YCSB_KEY", BillingMode: types.BillingModePayPerRequest,
		RCU: 10, WCU: 10, MaxRetries: 2, MaxBackoff: 20 * time.Second,
		ConnectTimeout: 5 * time.Second, Timeout: 10 * time.Second, Pool: 16,
		ConditionalWrites: true, InclusiveScan: true, Table: "usertable",
	}, c)
	require.Equal(t, "https://dynamodb.us-east-1.amazonaws.com", c.Address())
}

func TestBadProperties(t *testing.T) {
	for prop, val := range map[string]string{
		"dynamodb.endpoint":           "127.0.0.1:8000",
		"dynamodb.region":             "",
		"dynamodb.primarykey":         "",
		"dynamodb.consistentreads":    "sometimes",
		"dynamodb.billingmode":        "ON_DEMAND",
		"dynamodb.maxretries":         "-1",
		"dynamodb.maxbackoff":         "forever",
		"dynamodb.connect.timeout":    "0",
		"dynamodb.timeout":            "soon",
		"dynamodb.pool":               "0",
		"dynamodb.conditionalwrites":  "maybe",
		"dynamodb.inclusivescan":      "2",
		"dynamodb.rcu":                "100",  // without PROVISIONED
		"dynamodb.accesskey":          "AKIA", // without the secret
		"dynamodb.primaryKeyType":     "HASH_AND_RANGE",
		"dynamodb.awsCredentialsFile": "/nonexistent/AWSCredentials.properties",
	} {
		_, err := dynamodb.ParseConfig(map[string]string{prop: val}, 4)
		require.Error(t, err, prop)
		require.Contains(t, err.Error(), prop)
	}
	_, err := dynamodb.ParseConfig(map[string]string{"dynamodb.billingmode": "PROVISIONED", "dynamodb.wcu": "0"}, 4)
	require.ErrorContains(t, err, "dynamodb.wcu")
}

func TestYCSBProperties(t *testing.T) {
	creds := filepath.Join(t.TempDir(), "AWSCredentials.properties")
	require.NoError(t, os.WriteFile(creds, []byte("# YCSB's file\naccessKey = AKIAEXAMPLE\nsecretKey=s3cret\n"), 0o600))
	c, err := dynamodb.ParseConfig(map[string]string{
		"dynamodb.primaryKey": "firstname", "dynamodb.consistentReads": "true", "dynamodb.connectMax": "50",
		"dynamodb.endpoint": "http://dynamodb.us-west-2.amazonaws.com", "dynamodb.region": "us-west-2",
		"dynamodb.awsCredentialsFile": creds, "dynamodb.primaryKeyType": "HASH", "table": "ycsb",
		"dynamodb.billingmode": "provisioned", "dynamodb.rcu": "100", "dynamodb.wcu": "50",
	}, 4)
	require.NoError(t, err)
	require.Equal(t, "firstname", c.PrimaryKey)
	require.True(t, c.ConsistentReads)
	require.Equal(t, 50, c.Pool)
	require.Equal(t, "AKIAEXAMPLE", c.AccessKey)
	require.Equal(t, "s3cret", c.SecretKey)
	require.Equal(t, "ycsb", c.Table)
	require.Equal(t, types.BillingModeProvisioned, c.BillingMode)
	require.EqualValues(t, 100, c.RCU)

	_, err = dynamodb.ParseConfig(map[string]string{"dynamodb.primaryKey": "a", "dynamodb.primarykey": "b"}, 4)
	require.ErrorContains(t, err, "dynamodb.primaryKey")
	_, err = dynamodb.ParseConfig(map[string]string{"dynamodb.awsSecretKey": "s3cret-one", "dynamodb.secretkey": "s3cret-two"}, 4)
	require.EqualError(t, err, `dynamodb.awsSecretKey="REDACTED" and dynamodb.secretkey="REDACTED": both set the same thing; keep one`)
}
