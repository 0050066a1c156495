package recognize

// AlarmsOf are a recipe's alarms: the conditions that call for someone
// now (a lock's, an election's, a queue's, a partitioner's); none for the others.
func AlarmsOf(r Recipe) []Alarm {
	switch r := r.(type) {
	case *Lock:
		return r.Alarms
	case *Election:
		return r.Alarms
	case *Queue:
		return r.Alarms
	case *Partitioner:
		return r.Alarms
	}
	return nil
}
