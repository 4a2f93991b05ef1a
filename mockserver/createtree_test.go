package mockserver

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/taskrouting/taskrouting-go/internal/contract"
)

// TestCreateBodyFromTree holds the create's read of the schema check's tree and the body's
// text (createTaskBody.fromTree) to what encoding/json decodes from the same body, and says
// which bodies it leaves to encoding/json.
func TestCreateBodyFromTree(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		fast       bool
	}{
		{"bench body", string(benchBody), true},
		{"empty object", `{}`, true},
		{"whitespace everywhere", " {\n\t\"tags\" : [ \"a\" , \"b\" ] ,\r\n \"priority\" :\t1e2 , \"meta\" : { \"k\" : [ 1 , { } ] } \n} \n", true},
		{"strings with brackets and escapes", `{"tags":["a}","b]\"{"],"title":"\u00e9 \"x\" }","description":"a\\","meta":{"s":"}],\"","n":null},"context":"[{"}`, true},
		{"every member", `{"id":"t_1","tags":["x"],"priority":-1.5,"vetoedWorkers":["w1","w2"],"skillThresholds":{"x":0.5,"y":1},` +
			`"meta":null,"escalation":{"respondWithinMs":1000,"onNoResponse":"requeue"},"sla":{"firstResponseMs":1e3},` +
			`"schedule":{"notBefore":1,"notAfter":2},"context":{"a":1},"references":[],"requiredSkills":[],` +
			`"latitude":1.25,"longitude":-3,"maxDistanceKm":10,"requireGeo":true,"allowedCidrs":["10.0.0.0/8"],` +
			`"teamId":"team_a","preferTeamId":"team_b","slot":{"startAt":0,"durationMs":1}}`, true},
		{"literals last", `{"requireGeo":false,"priority":0}`, true},
		{"empty arrays", `{"tags":[],"vetoedWorkers":[],"skillThresholds":{}}`, true},
		{"escaped name", `{"t\u0061gs":["a"]}`, false},
		{"member twice", `{"skillThresholds":{"a":1},"tags":["a","b"],"skillThresholds":{"b":2}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree, err := contract.DecodeJSON([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			var want createTaskBody
			if err := json.Unmarshal([]byte(tc.body), &want); err != nil {
				t.Fatal(err)
			}
			var got createTaskBody
			fast := got.fromTree(&request{body: []byte(tc.body), decoded: tree})
			if fast != tc.fast {
				t.Fatalf("fromTree = %v, want %v", fast, tc.fast)
			}
			if !fast {
				return
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(createTaskBody{})); diff != "" {
				t.Errorf("fromTree differs from encoding/json (-want +got):\n%s", diff)
			}
		})
	}
}
