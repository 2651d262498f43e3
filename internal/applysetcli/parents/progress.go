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

package parents

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// progressAfter is how long a read runs before it says how far it got: a
// small cluster answers at once and needs no progress line.
const progressAfter = time.Second

var progressShown sync.Map // io.Writer -> true once a progress line is on it

// progress returns a reporter of listed types that writes a line, rewritten
// in place, to w when w is a terminal and the read takes a while.
func progress(w io.Writer) func(done, total int) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	start, last := time.Now(), time.Time{}
	return func(done, total int) {
		now := time.Now()
		if now.Sub(start) < progressAfter || (now.Sub(last) < 200*time.Millisecond && done < total) {
			return
		}
		last = now
		progressShown.Store(w, true)
		fmt.Fprintf(w, "\rReading resource types: %d/%d", done, total)
	}
}

// endProgress ends the progress line, if one was written.
func endProgress(w io.Writer) {
	if _, shown := progressShown.LoadAndDelete(w); shown {
		fmt.Fprintln(w)
	}
}
