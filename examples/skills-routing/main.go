// Command skills-routing shows catalogue skills with levels deciding who gets a task.
//
// It runs offline against an in-process mock server. A workspace defines two skills
// (spanish, refunds) and three agents who all carry the tag "support" but hold the skills at
// different levels, one of them only until a given day. Tasks then ask for skills with a
// minimum level (requiredSkills): an agent below the level, or without the skill, is not
// eligible, and among the eligible ones the higher level scores more (level x 20, or the
// skill's weight override). Each match prints the decision's reasons, so you see the rule
// that left each other agent out. When the server's clock passes a skill's last valid day,
// the skill stops counting and skills.expiring reports it. It ends with a summary line:
//
//	go run ./examples/skills-routing
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "skills-routing:", err)
		os.Exit(1)
	}
}
