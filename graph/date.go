package graph

import (
	"fmt"
	"math"
	"time"
)

// FuzzyDate is a date known to a year, a month or a day. The zero value means "unknown".
type FuzzyDate struct {
	Year, Month, Day int // Month and Day are 0 when not known
}

// ParseFuzzyDate reads YYYY, YYYY-MM or YYYY-MM-DD, digits only, with a year from 1000 on and a real
// month and day. The empty string is the zero FuzzyDate.
func ParseFuzzyDate(s string) (FuzzyDate, error) {
	if s == "" {
		return FuzzyDate{}, nil
	}
	bad := fmt.Errorf("%q is not a date: want YYYY, YYYY-MM or YYYY-MM-DD", Truncate(s, 40))
	digits := func(from, to int) (int, bool) {
		n := 0
		for _, c := range []byte(s[from:to]) {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	var d FuzzyDate
	ok := true
	switch len(s) {
	case 4:
		d.Year, ok = digits(0, 4)
	case 7:
		d.Year, ok = digits(0, 4)
		if ok && s[4] == '-' {
			d.Month, ok = digits(5, 7)
		} else {
			ok = false
		}
	case 10:
		d.Year, ok = digits(0, 4)
		if ok && s[4] == '-' && s[7] == '-' {
			d.Month, ok = digits(5, 7)
			if ok {
				d.Day, ok = digits(8, 10)
			}
		} else {
			ok = false
		}
	default:
		ok = false
	}
	if !ok || d.Year < 1000 || (len(s) >= 7 && (d.Month < 1 || d.Month > 12)) {
		return FuzzyDate{}, bad
	}
	if len(s) == 10 {
		if t := time.Date(d.Year, time.Month(d.Month), d.Day, 0, 0, 0, 0, time.UTC); d.Day < 1 || t.Day() != d.Day {
			return FuzzyDate{}, bad // 2023-02-30
		}
	}
	return d, nil
}

// IsZero reports whether the date is unknown.
func (d FuzzyDate) IsZero() bool { return d.Year == 0 }

// String formats the date as it was written: YYYY, YYYY-MM or YYYY-MM-DD; "" when unknown.
func (d FuzzyDate) String() string {
	switch {
	case d.Year == 0:
		return ""
	case d.Year < 0 || d.Year > 9999 || d.Month < 0 || d.Month > 99 || d.Day < 0 || d.Day > 99:
		// Out of any range a date checked on input holds: written by fmt.
		switch {
		case d.Month == 0:
			return fmt.Sprintf("%04d", d.Year)
		case d.Day == 0:
			return fmt.Sprintf("%04d-%02d", d.Year, d.Month)
		}
		return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day)
	}
	// Answers print thousands of dates: written digit by digit, as %04d-%02d-%02d would.
	b := make([]byte, 0, 10)
	b = append(b, byte('0'+d.Year/1000), byte('0'+d.Year/100%10), byte('0'+d.Year/10%10), byte('0'+d.Year%10))
	if d.Month == 0 {
		return string(b)
	}
	b = append(b, '-', byte('0'+d.Month/10), byte('0'+d.Month%10))
	if d.Day == 0 {
		return string(b)
	}
	return string(append(b, '-', byte('0'+d.Day/10), byte('0'+d.Day%10)))
}

// FirstDay is the earliest day the date may mean, in days since 1970-01-01.
func (d FuzzyDate) FirstDay() int {
	m, day := max(d.Month, 1), max(d.Day, 1)
	return dayNumber(time.Date(d.Year, time.Month(m), day, 0, 0, 0, 0, time.UTC))
}

// LastDay is the latest day the date may mean, in days since 1970-01-01.
func (d FuzzyDate) LastDay() int {
	switch {
	case d.Month == 0:
		return dayNumber(time.Date(d.Year+1, 1, 1, 0, 0, 0, 0, time.UTC)) - 1
	case d.Day == 0:
		return dayNumber(time.Date(d.Year, time.Month(d.Month)+1, 1, 0, 0, 0, 0, time.UTC)) - 1
	}
	return d.FirstDay()
}

func dayNumber(t time.Time) int { return int(t.Unix() / 86400) }

// DayString writes a day number as YYYY-MM-DD.
func DayString(day int) string { return time.Unix(int64(day)*86400, 0).UTC().Format("2006-01-02") }

// Period is a span of days, both ends included, in days since 1970-01-01.
type Period struct{ Start, End int }

// OpenPeriod is all of time.
var OpenPeriod = Period{Start: math.MinInt32, End: math.MaxInt32}

// PeriodOf is the span a fuzzy date may mean: "2015" is 2015-01-01 through 2015-12-31.
func PeriodOf(d FuzzyDate) Period { return Period{Start: d.FirstDay(), End: d.LastDay()} }

// Overlaps reports whether the two periods share a day.
func (p Period) Overlaps(q Period) bool { return p.Start <= q.End && q.Start <= p.End }

// Intersect is the days both periods share; Empty when none.
func (p Period) Intersect(q Period) Period {
	return Period{Start: max(p.Start, q.Start), End: min(p.End, q.End)}
}

// Empty reports whether the period holds no day.
func (p Period) Empty() bool { return p.Start > p.End }

// Open reports whether the period is all of time.
func (p Period) Open() bool { return p == OpenPeriod }
