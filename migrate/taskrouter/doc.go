// Package taskrouter reads what a team migrating from Twilio TaskRouter can export: a
// workspace as its REST API lists it (ReadWorkspace) and its event history (ReadEvents,
// ReadEventsFile). Input that is not an export is a *FormatError naming the file and the place
// (a JSON path, or the line and number of an event).
//
// The subpackages do the rest: expr evaluates TaskRouter expressions, plan turns a workspace
// into tags, worker upserts and task rules for this service, shadow replays the history
// through the mock server with the plan applied, and gen makes a synthetic workspace and
// history for tests and benchmarks. The command cmd/taskrouter-migrate drives them;
// docs/migration.md walks through it.
package taskrouter
