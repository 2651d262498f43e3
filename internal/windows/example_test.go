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

package windows_test

import (
	"fmt"
	"time"

	"github.com/applyset-operator/applyset-operator/internal/windows"
)

// A set delivered on working days, but never on Friday afternoon.
func ExampleDecide() {
	office, _ := windows.Parse(windows.Allow, "0 9 * * 1-5", 8*time.Hour, "Europe/Berlin")
	friday, _ := windows.Parse(windows.Deny, "0 12 * * 5", 5*time.Hour, "Europe/Berlin")
	d := windows.Decide([]windows.Window{office, friday}, time.Date(2026, 6, 12, 13, 0, 0, 0, time.UTC))
	fmt.Println(d.Allowed, d.By, d.Next.Format(time.RFC3339))
	_, err := windows.Parse(windows.Deny, "@daily", windows.MaxDuration+time.Hour, "UTC")
	fmt.Println(err)
	// Output:
	// false Deny window "0 12 * * 5" for 5h0m0s (Europe/Berlin) 2026-06-15T09:00:00+02:00
	// duration 745h0m0s is not between 0 and 744h0m0s
}
