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

package text

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncate(t *testing.T) {
	tests := []struct {
		s    string
		most int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"a bit too long", 10, "a bit t..."},
		{"über-long text", 6, "üb..."},
		{"ü€€€€", 6, "ü..."},
		{"€€€€", 5, "..."},
		{"abcdef", 2, ".."},
	}
	for _, tt := range tests {
		if got := Truncate(tt.s, tt.most); got != tt.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.s, tt.most, got, tt.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	items := []string{"a", "b", "c", "d"}
	if got := Summarize(items, 4); got != "a, b, c, d" {
		t.Errorf("Summarize(4) = %q", got)
	}
	if got := Summarize(items, 2); got != "a, b and 2 more" {
		t.Errorf("Summarize(2) = %q", got)
	}
	if got := Summarize([]string{"1", "2", "3", "4", "5", "6", "7"}, 5); got != "1, 2, 3, 4, 5 and 2 more" {
		t.Errorf("Summarize(5) = %q", got)
	}
}

func TestLimit(t *testing.T) {
	tests := []struct {
		name  string
		items []string
		most  int
		want  []string
	}{
		{"nothing", nil, 3, nil},
		{"fits", []string{"a", "b"}, 3, []string{"a", "b"}},
		{"exactly", []string{"a", "b", "c"}, 3, []string{"a", "b", "c"}},
		{"too many: the last place counts the rest", []string{"a", "b", "c", "d", "e"}, 3, []string{"a", "b", "... and 3 more"}},
		{"long items are cut", []string{"0123456789"}, 3, []string{"0123..."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Limit(tt.items, tt.most, 7); !slices.Equal(got, tt.want) {
				t.Errorf("Limit = %q, want %q", got, tt.want)
			}
		})
	}
}

// Whatever the input, the result fits and stays valid UTF-8 when the input was.
func FuzzTruncate(f *testing.F) {
	f.Add("hello, world", 5)
	f.Add("ünïcödé", 4)
	f.Fuzz(func(t *testing.T, s string, most int) {
		if most < 0 || most > 1<<16 {
			return
		}
		got := Truncate(s, most)
		if len(got) > most {
			t.Fatalf("Truncate(%q, %d) = %q: %d bytes", s, most, got, len(got))
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Truncate(%q, %d) = %q: split a character", s, most, got)
		}
		if len(s) > most && most >= 3 && !strings.HasSuffix(got, "...") {
			t.Fatalf("Truncate(%q, %d) = %q: no ellipsis", s, most, got)
		}
	})
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 bytes", -5000: "-5000 bytes", 300: "300 bytes", 1023: "1023 bytes", 1024: "1 KiB", 1536: "1.5 KiB",
		16 << 20: "16 MiB", 256 << 20: "256 MiB", 3 << 30: "3 GiB", 1<<62 + 1<<61: "6 EiB", (16 << 20) + 1: "16 MiB",
		(16 << 20) + 200<<10: "16.2 MiB",
	} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
