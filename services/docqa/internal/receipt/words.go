package receipt

import (
	"regexp"
	"strings"
)

// The words receipts label their lines with, in English, German, French
// and Chinese, matched on keywordText (lower case, OCR's digits in words
// read back as letters). Each is a regular expression on one line.
var (
	// Lines whose amount is the total, strongest first: what is due, then
	// what a total is called.
	totalLabels = []*regexp.Regexp{
		regexp.MustCompile(`zu zahlen|amount due|balance due|total due|montant (?:dû|du|à payer|a payer)|net à payer|net a payer|à payer|应付|实付|实收|应收|付款金额|total ttc|gesamtbetrag|rechnungsbetrag|endbetrag|brutto|invoice total|grand total|total amount|amount payable|总计|合计|总金额`),
		regexp.MustCompile(`\btotal\b|\bsumme\b|\bgesamt\b|\bsomme\b`),
		// What a line's amount is called: the total only when nothing
		// above names one.
		regexp.MustCompile(`\bbetrag\b|\bmontant\b|\bsale\b|\bamount\b|金额`),
	}
	// Lines whose amount is not the total even when they say "total".
	notTotal = regexp.MustCompile(`zwischensumme|sub-?total|sous-?total|小计|mwst|ust\b|u\.st|vat|tva|\btax\b|税|netto|\bnet\b(?: amount)?|\bht\b|hors taxe|h\.t\.|excl|rückgeld|change\b|monnaie|rendu|找零|gegeben|tendered|cash\b|espèces|especes|bar\b|现金|rabatt|discount|remise|优惠|trinkgeld|tip\b|pourboire|points|punkte|payback|nectar|clubcard|saved|gespart|ersparnis|économie|cashback|gutschein|voucher|coupon|anzahlung|deposit|acompte|preis\s?/|price\s?/|prix\s?/|单价|/\s?l\b|/\s?kwh`)
	// A card payment: what was paid is the total (a cash line is not: cash
	// given can exceed it).
	cardPaid = regexp.MustCompile(`visa|mastercard|maestro|amex|american express|girocard|ec-karte|ec karte|kartenzahlung|karte\b|debit|credit|carte bancaire|\bcb\b|contactless|kontaktlos|银联|支付宝|微信|刷卡|paypal|apple pay|google pay`)

	unitPriceLabel = regexp.MustCompile(`preis\s?/\s?(?:l|ltr|liter|kwh|kg)|preis je|preis pro|literpreis|grundpreis|price\s?/\s?(?:gal|g|l|ltr|litre|liter|kwh|kg)|price per|\bppg\b|\bppl\b|unit price|prix\s?/\s?(?:l|kwh)|prix unitaire|prix au litre|p\.u\.|单价|kwh-preis|energiepreis|tarif|rate\b`)
	qtyLabel       = regexp.MustCompile(`menge|volume|quantit|\bqty\b|gallons|\blitres\b|\bliters\b|\bliter\b|升数|数量|加油量|充电量|电量|\benergie\b|\benergy\b|geladen|abgabe|delivered|consumed|charged`)

	odometerLabel = regexp.MustCompile(`km-?stand|kilometerstand|kilometer-?stand|laufleistung|mileage(?: in)?|odometer|odo\b|kilométrage|kilometrage|compteur|里程|公里数|表显`)
	// Lines whose date is not the receipt's.
	notTheDate = regexp.MustCompile(`fällig|faellig|due|zahlbar bis|payable|échéance|echeance|nächste|naechste|next|prochaine|gültig|gueltig|valid|expir|exp\b|ablauf|到期|下次|有效期|erstzulassung|first registration|mise en circulation|lieferdatum|leistungsdatum bis`)
	dateLabel  = regexp.MustCompile(`datum|date|日期|时间|交易时间|rechnungsdatum|invoice date`)

	// Workshop invoices: labour, parts, the words of a service.
	workshop    = regexp.MustCompile(`werkstatt|arbeitswert|arbeitslohn|\blohn\b|ersatzteil|\bteile\b|inspektion|wartung|reparatur|ölwechsel|oelwechsel|labou?r|\bparts\b|service\b|servicing|\bmot\b|repair|oil change|brake|bremse|main[- ]d['’]?\s?(?:oe|œ)uvre|pièces|pieces|révision|revision|vidange|entretien|garage|工时|配件|维修|保养|机油|kfz|auftrag|job card|work order`)
	invoiceWord = regexp.MustCompile(`rechnung|invoice|facture|发票|kostenvoranschlag`)

	greeting = regexp.MustCompile(`welcome|willkommen|bienvenue|欢迎|thank|danke|merci|谢谢|receipt|quittung|kassenbon|\bbeleg\b|\bbon\b|ticket|reçu|recu|小票|收据|rechnung|invoice|facture|发票|kunden|customer|copy|kopie|duplicate|tel\b|tel\.|telefon|phone|fax|www\.|http|@|str\.|straße|strasse|road|\brd\b|street|\bst\b|avenue|\bave\b|rue\b|chemin|路|街|号|ust-?id|vat no|siret|tva intra|steuer-?nr|mwst-nr|uid`)
)

// Fuel names to the fuel service's energies. Diesel first: "Premium
// Diesel", "Ultimate Diesel" are diesel, not a premium petrol; AdBlue is
// no fuel at all and its line is never one (adBlue).
var (
	adBlue = regexp.MustCompile(`adblue|ad blue|def\b|diesel exhaust fluid|尿素`)
	fuels  = []struct {
		energy string
		re     *regexp.Regexp
	}{
		{"diesel", regexp.MustCompile(`diesel|gazole|gasoil|gas oil|\bderv\b|\bb7\b|\bb10\b|柴油|\bhvo\b`)},
		{"lpg", regexp.MustCompile(`\blpg\b|autogas|\bgpl\b|液化石油气`)},
		{"cng", regexp.MustCompile(`\bcng\b|erdgas|\bgnv\b|bio-?cng|天然气|压缩天然气`)},
		{"hydrogen", regexp.MustCompile(`wasserstoff|hydrogen|hydrogène|hydrogene|\bh2\b|氢`)},
		{"gasoline", regexp.MustCompile(`super\s?(?:e5|e10|95|98|plus|unleaded)?|\bsuper\b|\be10\b|\be5\b|\bsp\s?9[58]|sp95-e10|unleaded|petrol|benzin|essence|premium|regular|midgrade|mid-grade|plus\b|v-power|ultimate|ulsp|汽油|9[258]号`)},
	}
	electric = regexp.MustCompile(`kwh|千瓦时|充电|ladevorgang|charging|recharge|strom\b|electricity|électricité`)
)

// Brands a vendor line names (lower case); a line naming one is surely the
// vendor.
var brands = []string{
	"shell", "aral", "bp", "esso", "total", "totalenergies", "texaco", "jet", "agip", "eni", "q8", "omv", "avia",
	"star", "hem", "orlen", "tamoil", "westfalen", "raiffeisen", "tesco", "sainsbury", "asda", "morrisons", "gulf",
	"chevron", "exxon", "mobil", "circle k", "sunoco", "valero", "speedway", "7-eleven", "costco", "marathon",
	"phillips 66", "conoco", "arco", "intermarché", "intermarche", "leclerc", "carrefour", "auchan", "super u",
	"ionity", "tesla", "enbw", "allego", "fastned", "pod point", "instavolt", "chargepoint", "electrify america",
	"evgo", "gridserve", "osprey", "mer", "maingau", "ewe go", "vattenfall", "freshmile", "izivia",
	"中国石化", "中国石油", "中石化", "中石油", "sinopec", "petrochina", "国家电网", "特来电", "星星充电", "壳牌", "蔚来",
	"atu", "a.t.u", "kwik fit", "halfords", "norauto", "feu vert", "midas", "speedy", "euromaster", "bosch car service",
	"pitstop", "vergölst", "point s",
}

// keywordText is a line as the label rules read it: lower case, with the
// digits OCR reads for letters inside words read back (T0TAL, Tota1,
// 5umme), where a word has more letters than digits.
func keywordText(s string) string {
	fields := strings.Fields(strings.ToLower(s))
	for i, f := range fields {
		letters, digits := 0, 0
		for _, r := range f {
			switch {
			case r >= '0' && r <= '9':
				digits++
			case r >= 'a' && r <= 'z':
				letters++
			}
		}
		if digits > 0 && letters > digits {
			fields[i] = strings.NewReplacer("0", "o", "1", "l", "5", "s", "|", "l").Replace(f)
		}
	}
	return strings.Join(fields, " ")
}
