package webhook

import (
	"strconv"
	"time"
)

const testSecret = "whsec_testsecret"

// vector is one signed delivery of the test vectors in docs/contract.md
// (section 6, Signature), computed independently of this package.
type vector struct {
	name   string
	secret string
	millis int64
	body   string
	sig    string
}

func (v vector) at() time.Time { return time.UnixMilli(v.millis) }

func (v vector) header() string {
	return "t=" + strconv.FormatInt(v.millis, 10) + ",v1=" + v.sig
}

// contractVectors are the test vectors of docs/contract.md, section 6.
var contractVectors = []vector{
	{
		name: "flat task.matched", secret: testSecret, millis: 1750000000000,
		body: `{"event":"task.matched","taskId":"task_8fk2","workerId":"agent_1"}`,
		sig:  "bbb9baa2754dd71e55f126329a25fe8be7e3ec26a4858055f0964eca89680ffc",
	},
	{
		name: "task.completed with result", secret: testSecret, millis: 1750000000000,
		body: `{"event":"task.completed","taskId":"task_8fk2","workerId":"agent_1","result":{"resolved":true}}`,
		sig:  "a99777a1fe47c17727baa97f2b0fa311196f68cd4b0d968773bf493bb300560a",
	},
	{
		name: "nested data", secret: testSecret, millis: 1763700000123,
		body: `{"event":"task.matched","data":{"taskId":"task_9aa3","workerId":"agent_2"}}`,
		sig:  "d1209e7ced0d20854feaa9a6f811e683ee95de71669e7bc1e6771096ae2a3acb",
	},
	{
		name: "rotated secret", secret: "whsec_rotated_2026", millis: 1750000000000,
		body: `{"event":"task.matched","taskId":"task_8fk2","workerId":"agent_1"}`,
		sig:  "c17076d4e618cc8842e6a841527e10dc68f7dfec6d146a6ca55759d3cefede3a",
	},
	{
		name: "raw non-UTF-8 bytes", secret: testSecret, millis: 1750000000000,
		body: `{"event":"task.matched","note":"` + "\xff\xfe" + `"}`,
		sig:  "f7ece207d0ff5b4b52a5ac04150457b638323841c714b459c2714d9643288bec",
	},
}

// flipHex changes the hex digit at i to another valid digit.
func flipHex(s string, i int) string {
	c := byte('0')
	if s[i] == '0' {
		c = '1'
	}
	return s[:i] + string(c) + s[i+1:]
}
