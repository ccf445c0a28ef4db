package parcel

// Tier is a weight band and its base price.
type Tier struct {
	// Name is what the invoice says.
	Name string
	// MaxGrams is the heaviest parcel of the band, inclusive.
	MaxGrams int
	// Cents is the band's base price.
	Cents int
}

// Tiers are the weight bands, lightest first. A parcel goes in the first
// band whose limit it does not exceed.
var Tiers = []Tier{
	{Name: "letter", MaxGrams: 100, Cents: 120},
	{Name: "small", MaxGrams: 2000, Cents: 490},
	{Name: "medium", MaxGrams: 10000, Cents: 990},
	{Name: "large", MaxGrams: 31500, Cents: 1890},
}

// tierFor returns the band of a parcel of grams; ok is false when it is
// heavier than every band.
func tierFor(grams int) (Tier, bool) {
	for _, t := range Tiers {
		if grams <= t.MaxGrams {
			return t, true
		}
	}
	return Tier{}, false
}
