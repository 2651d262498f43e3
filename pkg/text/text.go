/*
Copyright 2026 The applyset-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package text shortens what the operator writes for people: condition
// messages, Events and admission warnings all have size limits. It is a
// library because the apply engine (pkg/apply) words its refusals with it;
// a tool that shows the engine's messages may use it to shorten its own.
package text

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ellipsis marks a shortened text.
const ellipsis = "..."

// Truncate returns s cut to at most most bytes, ending in "..." when it was
// cut. It never splits a UTF-8 character.
func Truncate(s string, most int) string {
	if len(s) <= most {
		return s
	}
	if most <= len(ellipsis) {
		return ellipsis[:max(most, 0)]
	}
	cut := most - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}

// Summarize joins up to most items with commas and counts the rest, so a
// message about many objects stays short.
func Summarize(items []string, most int) string {
	if len(items) <= most {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:most], ", "), len(items)-most)
}

// Limit keeps at most most items, each cut to at most itemBytes, the last one
// kept saying how many were left out, so a list in status stays small
// whatever the size of what it describes.
func Limit(items []string, most, itemBytes int) []string {
	if len(items) == 0 || most <= 0 {
		return nil
	}
	kept := items
	if len(items) > most {
		kept = items[:most-1]
	}
	out := make([]string, 0, min(len(items), most))
	for _, item := range kept {
		out = append(out, Truncate(item, itemBytes))
	}
	if len(items) > most {
		out = append(out, fmt.Sprintf("... and %d more", len(items)-len(kept)))
	}
	return out
}

// Bytes writes a size as a person reads a limit: "16 MiB", "1.5 KiB",
// "300 bytes".
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	value, prefix := float64(n), 0
	for value >= unit && prefix < 6 {
		value /= unit
		prefix++
	}
	return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.1f", value), "0"), ".") + " " + string("KMGTPE"[prefix-1]) + "iB"
}
