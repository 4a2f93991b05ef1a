package taskrouting

import (
	"context"
	"encoding/json"
	"iter"
	"math"
	"net/url"
	"strconv"
	"time"
)

// Comment is a note on a task (Comment in api/openapi.json).
type Comment struct {
	ID        string        `json:"id"`
	TaskID    string        `json:"taskId"`
	Author    CommentAuthor `json:"author"`
	Body      string        `json:"body"`
	CreatedAt time.Time     `json:"-"` // wire createdAt, epoch ms
}

// UnmarshalJSON decodes the wire form, whose createdAt is epoch ms.
func (c *Comment) UnmarshalJSON(b []byte) error {
	type plain Comment
	w := struct {
		*plain
		CreatedAt wireTime `json:"createdAt"`
	}{plain: (*plain)(c)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	c.CreatedAt = w.CreatedAt.t
	return nil
}

// CommentAuthor says who wrote a comment.
type CommentAuthor struct {
	Type  string `json:"type"`  // "user", "worker" or "api"
	ID    string `json:"id"`    // "" when null
	Label string `json:"label"` // "" when null
}

// AddCommentParams is a new comment. WorkerID names the worker who wrote
// it; without it the comment is the API caller's.
type AddCommentParams struct {
	Body        string `json:"body"`                  // required
	WorkerID    string `json:"workerId,omitempty"`    // at most 128 characters
	AuthorLabel string `json:"authorLabel,omitempty"` // at most 200 characters
}

// validate holds the fields to the platform's limits (tasks.comments.add).
func (p AddCommentParams) validate() error {
	const in = "AddCommentParams"
	return firstError(
		checkLen(in+".Body", p.Body, 1, math.MaxInt),
		checkLen(in+".WorkerID", p.WorkerID, 0, 128),
		checkLen(in+".AuthorLabel", p.AuthorLabel, 0, 200),
	)
}

// ListCommentsParams pages GET /tasks/{id}/comments. Zero fields are not sent.
type ListCommentsParams struct {
	Cursor string // from CommentPage.NextCursor
	Limit  int    // 1-100; 0 leaves the server's default
}

// CommentPage is one page of a task's comments, oldest first.
type CommentPage struct {
	Comments   []Comment `json:"comments"`
	NextCursor string    `json:"nextCursor"` // "" when null
	HasMore    bool      `json:"hasMore"`
}

// TaskCommentsService writes and reads the comments on a task
// (tasks.comments.*). Reach it as Client.Tasks.Comments.
type TaskCommentsService struct{ c *Client }

// Add adds a comment to a task and returns it as stored.
//
// API: tasks.comments.add, POST /tasks/{id}/comments
func (s *TaskCommentsService) Add(ctx context.Context, taskID string, p AddCommentParams, opts ...RequestOption) (*Comment, error) {
	if err := s.c.admit(firstError(checkID("taskID", taskID), p.validate()), opts); err != nil {
		return nil, err
	}
	var out struct {
		Comment Comment `json:"comment"`
	}
	if err := s.c.call(ctx, "POST", escapePath("/tasks/", taskID, "/comments"), nil, p, &out, opts); err != nil {
		return nil, err
	}
	return &out.Comment, nil
}

// ListPage returns one page of a task's comments.
//
// API: tasks.comments.list, GET /tasks/{id}/comments
func (s *TaskCommentsService) ListPage(ctx context.Context, taskID string, p ListCommentsParams, opts ...RequestOption) (*CommentPage, error) {
	return commentPageAt(ctx, s.c, "/tasks/", taskID, p, opts)
}

// List returns every comment on a task from p.Cursor on, fetching pages
// as the loop asks for them. An error ends the iteration; a cursor seen
// before ends it with ErrCursorRepeated rather than looping forever.
//
// API: tasks.comments.list, GET /tasks/{id}/comments
func (s *TaskCommentsService) List(ctx context.Context, taskID string, p ListCommentsParams, opts ...RequestOption) iter.Seq2[Comment, error] {
	return allComments(p, func(p ListCommentsParams) (*CommentPage, error) { return s.ListPage(ctx, taskID, p, opts...) })
}

// commentPageAt fetches one page of comments under prefix ("/tasks/" or,
// on the worker plane, "/portal/tasks/"); both planes page alike.
func commentPageAt(ctx context.Context, c *Client, prefix, taskID string, p ListCommentsParams, opts []RequestOption) (*CommentPage, error) {
	if err := c.admit(firstError(checkID("taskID", taskID), checkLen("ListCommentsParams.Cursor", p.Cursor, 0, 512)), opts); err != nil {
		return nil, err
	}
	if p.Limit < 0 {
		return nil, &ParamError{Param: "ListCommentsParams.Limit", Problem: "must be 1-100, or 0 for the server's default"}
	}
	if err := c.admit(checkRange("ListCommentsParams.Limit", float64(p.Limit), 0, 100), opts); err != nil {
		return nil, err
	}
	q := url.Values{}
	if p.Cursor != "" {
		q.Set("cursor", p.Cursor)
	}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	out := new(CommentPage)
	if err := c.call(ctx, "GET", escapePath(prefix, taskID, "/comments"), q, nil, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// allComments walks the pages page returns from p.Cursor on.
func allComments(p ListCommentsParams, page func(ListCommentsParams) (*CommentPage, error)) iter.Seq2[Comment, error] {
	return func(yield func(Comment, error) bool) {
		p := p // ranging again starts from the caller's cursor
		seen := map[string]bool{p.Cursor: p.Cursor != ""}
		for {
			pg, err := page(p)
			if err != nil {
				yield(Comment{}, err)
				return
			}
			for _, c := range pg.Comments {
				if !yield(c, nil) {
					return
				}
			}
			if !pg.HasMore || pg.NextCursor == "" {
				return
			}
			if seen[pg.NextCursor] {
				yield(Comment{}, ErrCursorRepeated)
				return
			}
			seen[pg.NextCursor] = true
			p.Cursor = pg.NextCursor
		}
	}
}

// Remove deletes a comment from a task.
//
// API: tasks.comments.remove, DELETE /tasks/{id}/comments/{commentId}
func (s *TaskCommentsService) Remove(ctx context.Context, taskID, commentID string, opts ...RequestOption) error {
	if err := s.c.admit(firstError(checkID("taskID", taskID), checkID("commentID", commentID)), opts); err != nil {
		return err
	}
	return s.c.call(ctx, "DELETE", escapePath("/tasks/", taskID, "/comments/", commentID), nil, nil, nil, opts)
}
