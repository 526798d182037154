package health

func i64(v int64) *int64 { return &v }
