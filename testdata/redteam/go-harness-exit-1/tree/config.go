// Package queue runs background jobs.
package queue

import "time"

// DefaultVisibility is how long a job taken by a worker stays hidden from
// the other workers.
const DefaultVisibility = 3 * time.Second

// DefaultWorkers is how many jobs run at once.
const DefaultWorkers = 4
