package providers

// WorkDone is the count of units of schema-conversion work done in this
// process so far (see workDone).
func WorkDone() int64 { return workDone.Load() }

// MaxWork is one walker's budget.
const MaxWork = maxWork
