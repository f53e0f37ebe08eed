package core

// rowFields are the changes a record's own row holds whole: a reading after them is the reading before
// with the new values, while tags, product, user and customer also change names the store looks up.
var rowFields = map[string]bool{"title": true, "description": true, "status": true, "importance": true, "release": true, "timeframe": true}

// Applied is the reading of c.Base after c is written, when c changes only fields of the record's own
// row, so that a store can answer an edit without reading the record back. It is exact because every
// change of what a read shows moves the version, and c is written only while the version is c.Base's.
// ok is false when the store must read the record back.
func Applied(c RecordChange) (rec Record, ok bool) {
	if c.Base == nil || c.Base.ID != c.ID || c.Base.Version != c.Version || c.SetTags || c.SetContact {
		return Record{}, false
	}
	for f := range c.History.Changes {
		if !rowFields[f] {
			return Record{}, false
		}
	}
	rec = *c.Base
	rec.Title, rec.DescriptionHTML, rec.Description, rec.Status = c.Title, c.DescriptionHTML, c.Description, c.Status
	rec.Importance, rec.Release, rec.Timeframe = c.Importance, c.Release, c.Timeframe
	rec.UpdatedAt, rec.Version = c.UpdatedAt, c.Version+1
	return rec, true
}
