package match

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUpdateTask(t *testing.T) {
	t.Run("queued task moves to its new tags", func(t *testing.T) {
		h := newHarness(t, Config{})
		h.task("t1", "a")
		h.worker("wb", "b")
		h.ok(h.e.UpdateTask(h.step(), "t1", TaskUpdate{Tags: []string{"b"}, Priority: ptr(3.0)}))
		assert.Equal(t, map[string]string{"t1": "pending:wb"}, h.state())
		got, err := h.e.Task("t1")
		require.NoError(t, err)
		assert.Equal(t, []string{"b"}, got.Tags)
		assert.Equal(t, 3.0, got.Priority)
	})
	t.Run("holder that no longer qualifies gives the task back", func(t *testing.T) {
		h := newHarness(t, Config{})
		h.worker("wa", "a")
		h.task("t1", "a")
		require.Equal(t, map[string]string{"t1": "pending:wa"}, h.state())
		h.worker("wab", "a", "b")
		res := h.ok(h.e.UpdateTask(h.step(), "t1", TaskUpdate{Tags: []string{"a", "b"}}))
		assert.Equal(t, "wa", res.PreviousWorkerID)
		assert.Equal(t, map[string]string{"t1": "pending:wab"}, h.state())
		var kinds []string
		for _, ev := range res.Events {
			kinds = append(kinds, string(ev.Kind)+":"+ev.Reason)
		}
		assert.Equal(t, []string{"task.released:updated", "task.matched:"}, kinds)
	})
	t.Run("holder that still qualifies keeps it", func(t *testing.T) {
		h := newHarness(t, Config{})
		h.worker("wab", "a", "b")
		h.task("t1", "a")
		res := h.ok(h.e.UpdateTask(h.step(), "t1", TaskUpdate{Tags: []string{"b"}}))
		assert.Empty(t, res.PreviousWorkerID)
		assert.Equal(t, map[string]string{"t1": "pending:wab"}, h.state())
	})
	t.Run("refused edits change nothing", func(t *testing.T) {
		h := newHarness(t, Config{})
		h.task("t1", "a")
		_, err := h.e.UpdateTask(h.step(), "t1", TaskUpdate{Tags: []string{}})
		assert.ErrorIs(t, err, ErrInvalidInput)
		_, err = h.e.UpdateTask(h.step(), "nope", TaskUpdate{Tags: []string{"b"}})
		assert.ErrorIs(t, err, ErrNotFound)
		got, err := h.e.Task("t1")
		require.NoError(t, err)
		assert.Equal(t, []string{"a"}, got.Tags)
	})
}
