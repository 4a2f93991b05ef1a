package taskrouting

import "encoding/json"

// rawKeeper is an answer type that keeps its JSON in a Raw field.
type rawKeeper interface{ keepRaw(body []byte) }

// decodeAnswer decodes a 2xx body into out. encoding/json hands
// UnmarshalJSON the value's bytes only, without the whitespace around them,
// so an answer that keeps its JSON is given the whole body here: Raw is
// then the body exactly as received (TestRawKeepsTheBodyExactly).
func decodeAnswer(body []byte, out any) error {
	if err := json.Unmarshal(body, out); err != nil {
		return err
	}
	if k, ok := out.(rawKeeper); ok {
		k.keepRaw(body)
	}
	return nil
}

// The body is read fresh for each call and kept by nothing else, so the
// answer may own it without a copy.
func (t *Task) keepRaw(body []byte)          { t.Raw = body }
func (w *WorkerDetail) keepRaw(body []byte)  { w.Raw = body }
func (p *WorkerProfile) keepRaw(body []byte) { p.Raw = body }
