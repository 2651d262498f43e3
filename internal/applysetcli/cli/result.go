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

package cli

import (
	"fmt"
	"io"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// Result is what a verb found, for its scaffold to print: as text for
// people, or, under -o, as a Document or a List.
type Result interface {
	Text(w io.Writer) error
}

// Document is a Result that -o prints as one document of kind Kind.
type Document interface {
	Result
	Kind() string
}

// List is a Result that -o prints as a v1 List of its Items, as kubectl
// prints several objects.
type List interface {
	Result
	Items() any
}

// Formatted is a Result that prints the verb's own -o formats (a table's
// wide, name) itself.
type Formatted interface {
	Result
	Format(w io.Writer, format string) error
}

// Empty is a Result that may hold nothing, which its text does not print
// but says on standard error, as kubectl get says "No resources found".
type Empty interface {
	Result
	// Nothing is what to say when the Result holds nothing, else "".
	Nothing() string
}

// Check is the Result of a check: when it Found something, the verb ends
// with ExitFindings once the Result is printed, so a CI job fails on it.
type Check interface {
	Result
	Found() bool
}

// Annotated is a Result whose notes go to standard error as its text is
// written, each beside the part it is about, as diff's notes go beside its
// diffs; its Text is the text alone.
type Annotated interface {
	Result
	Annotate(out, notes io.Writer) error
}

// Partial is a Result that may be partial: what could not be done ends the
// verb with Err, an error, once the rest is printed.
type Partial interface {
	Result
	Err() error
}

// Noted is a Result that tells people more than it prints (what was not
// checked, a summary): its Notes go to standard error after it, whatever
// the format.
type Noted interface {
	Result
	Notes(w io.Writer) error
}

// Show prints r as output asks, nil for text alone, then its notes; it
// returns a Partial's error, else findings() for a Check that found
// something.
func Show(streams genericiooptions.IOStreams, output *Output, r Result) error {
	if err := write(streams, output, r); err != nil {
		return err
	}
	if n, ok := r.(Noted); ok {
		if err := n.Notes(streams.ErrOut); err != nil {
			return err
		}
	}
	if p, ok := r.(Partial); ok && p.Err() != nil {
		return p.Err()
	}
	if c, ok := r.(Check); ok && c.Found() {
		return findings()
	}
	return nil
}

func write(streams genericiooptions.IOStreams, output *Output, r Result) error {
	switch {
	case output != nil && output.Printed():
		return document(streams.Out, output, r)
	case output != nil && output.Format != "":
		f, ok := r.(Formatted)
		if !ok {
			return fmt.Errorf("output format %q is not printed by this command", output.Format)
		}
		return f.Format(streams.Out, output.Format)
	}
	if e, ok := r.(Empty); ok && e.Nothing() != "" {
		_, err := fmt.Fprintln(streams.ErrOut, e.Nothing())
		return err
	}
	if a, ok := r.(Annotated); ok {
		return a.Annotate(streams.Out, streams.ErrOut)
	}
	return r.Text(streams.Out)
}

// document prints r as one document or a List, in output's format.
func document(w io.Writer, output *Output, r Result) error {
	switch r := r.(type) {
	case List:
		return output.PrintList(w, r.Items())
	case Document:
		obj, err := object(outputAPIVersion, r.Kind(), r)
		if err != nil {
			return err
		}
		return output.Print(w, obj)
	}
	return fmt.Errorf("output format %q is not printed by this command", output.Format)
}
