"""Unit conversions and size formatting for the inventory tools.

Every `a_to_b` function converts a value in unit a to unit b exactly (up to float rounding).
The factor tables are at the top; the generated-looking helpers below are kept explicit so that
grep finds them.
"""

from __future__ import annotations

LENGTH_IN_BASE = {
    "millimetre": 0.001,
    "centimetre": 0.01,
    "metre": 1.0,
    "kilometre": 1000.0,
    "inch": 0.0254,
    "foot": 0.3048,
    "yard": 0.9144,
    "mile": 1609.344,
    "nautical_mile": 1852.0,
}

MASS_IN_BASE = {
    "milligram": 1e-06,
    "gram": 0.001,
    "kilogram": 1.0,
    "tonne": 1000.0,
    "ounce": 0.028349523125,
    "pound": 0.45359237,
    "stone": 6.35029318,
}

TIME_IN_BASE = {
    "millisecond": 0.001,
    "second": 1.0,
    "minute": 60.0,
    "hour": 3600.0,
    "day": 86400.0,
    "week": 604800.0,
}

VOLUME_IN_BASE = {
    "millilitre": 0.001,
    "litre": 1.0,
    "cubic_metre": 1000.0,
    "us_gallon": 3.785411784,
    "imperial_gallon": 4.54609,
    "us_cup": 0.2365882365,
}

ENERGY_IN_BASE = {
    "joule": 1.0,
    "kilojoule": 1000.0,
    "calorie": 4.184,
    "kilocalorie": 4184.0,
    "watt_hour": 3600.0,
    "kilowatt_hour": 3600000.0,
    "btu": 1055.05585262,
}


def millimetre_to_centimetre(value: float) -> float:
    """`value` millimetres in centimetres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["millimetre"] / LENGTH_IN_BASE["centimetre"]


def millimetre_to_metre(value: float) -> float:
    """`value` millimetres in metres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["millimetre"] / LENGTH_IN_BASE["metre"]


def millimetre_to_kilometre(value: float) -> float:
    """`value` millimetres in kilometres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["millimetre"] / LENGTH_IN_BASE["kilometre"]


def millimetre_to_inch(value: float) -> float:
    """`value` millimetres in inchs."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["millimetre"] / LENGTH_IN_BASE["inch"]


def millimetre_to_foot(value: float) -> float:
    """`value` millimetres in foots."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["millimetre"] / LENGTH_IN_BASE["foot"]


def millimetre_to_yard(value: float) -> float:
    """`value` millimetres in yards."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["millimetre"] / LENGTH_IN_BASE["yard"]


def millimetre_to_mile(value: float) -> float:
    """`value` millimetres in miles."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["millimetre"] / LENGTH_IN_BASE["mile"]


def millimetre_to_nautical_mile(value: float) -> float:
    """`value` millimetres in nautical miles."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["millimetre"] / LENGTH_IN_BASE["nautical_mile"]


def centimetre_to_millimetre(value: float) -> float:
    """`value` centimetres in millimetres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["centimetre"] / LENGTH_IN_BASE["millimetre"]


def centimetre_to_metre(value: float) -> float:
    """`value` centimetres in metres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["centimetre"] / LENGTH_IN_BASE["metre"]


def centimetre_to_kilometre(value: float) -> float:
    """`value` centimetres in kilometres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["centimetre"] / LENGTH_IN_BASE["kilometre"]


def centimetre_to_inch(value: float) -> float:
    """`value` centimetres in inchs."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["centimetre"] / LENGTH_IN_BASE["inch"]


def centimetre_to_foot(value: float) -> float:
    """`value` centimetres in foots."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["centimetre"] / LENGTH_IN_BASE["foot"]


def centimetre_to_yard(value: float) -> float:
    """`value` centimetres in yards."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["centimetre"] / LENGTH_IN_BASE["yard"]


def centimetre_to_mile(value: float) -> float:
    """`value` centimetres in miles."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["centimetre"] / LENGTH_IN_BASE["mile"]


def centimetre_to_nautical_mile(value: float) -> float:
    """`value` centimetres in nautical miles."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["centimetre"] / LENGTH_IN_BASE["nautical_mile"]


def metre_to_millimetre(value: float) -> float:
    """`value` metres in millimetres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["metre"] / LENGTH_IN_BASE["millimetre"]


def metre_to_centimetre(value: float) -> float:
    """`value` metres in centimetres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["metre"] / LENGTH_IN_BASE["centimetre"]


def metre_to_kilometre(value: float) -> float:
    """`value` metres in kilometres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["metre"] / LENGTH_IN_BASE["kilometre"]


def metre_to_inch(value: float) -> float:
    """`value` metres in inchs."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["metre"] / LENGTH_IN_BASE["inch"]


def metre_to_foot(value: float) -> float:
    """`value` metres in foots."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["metre"] / LENGTH_IN_BASE["foot"]


def metre_to_yard(value: float) -> float:
    """`value` metres in yards."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["metre"] / LENGTH_IN_BASE["yard"]


def metre_to_mile(value: float) -> float:
    """`value` metres in miles."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["metre"] / LENGTH_IN_BASE["mile"]


def metre_to_nautical_mile(value: float) -> float:
    """`value` metres in nautical miles."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["metre"] / LENGTH_IN_BASE["nautical_mile"]


def kilometre_to_millimetre(value: float) -> float:
    """`value` kilometres in millimetres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["kilometre"] / LENGTH_IN_BASE["millimetre"]


def kilometre_to_centimetre(value: float) -> float:
    """`value` kilometres in centimetres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["kilometre"] / LENGTH_IN_BASE["centimetre"]


def kilometre_to_metre(value: float) -> float:
    """`value` kilometres in metres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["kilometre"] / LENGTH_IN_BASE["metre"]


def kilometre_to_inch(value: float) -> float:
    """`value` kilometres in inchs."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["kilometre"] / LENGTH_IN_BASE["inch"]


def kilometre_to_foot(value: float) -> float:
    """`value` kilometres in foots."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["kilometre"] / LENGTH_IN_BASE["foot"]


def kilometre_to_yard(value: float) -> float:
    """`value` kilometres in yards."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["kilometre"] / LENGTH_IN_BASE["yard"]


def kilometre_to_mile(value: float) -> float:
    """`value` kilometres in miles."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["kilometre"] / LENGTH_IN_BASE["mile"]


def kilometre_to_nautical_mile(value: float) -> float:
    """`value` kilometres in nautical miles."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["kilometre"] / LENGTH_IN_BASE["nautical_mile"]


def inch_to_millimetre(value: float) -> float:
    """`value` inchs in millimetres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["inch"] / LENGTH_IN_BASE["millimetre"]


def inch_to_centimetre(value: float) -> float:
    """`value` inchs in centimetres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["inch"] / LENGTH_IN_BASE["centimetre"]


def inch_to_metre(value: float) -> float:
    """`value` inchs in metres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["inch"] / LENGTH_IN_BASE["metre"]


def inch_to_kilometre(value: float) -> float:
    """`value` inchs in kilometres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["inch"] / LENGTH_IN_BASE["kilometre"]


def inch_to_foot(value: float) -> float:
    """`value` inchs in foots."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["inch"] / LENGTH_IN_BASE["foot"]


def inch_to_yard(value: float) -> float:
    """`value` inchs in yards."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["inch"] / LENGTH_IN_BASE["yard"]


def inch_to_mile(value: float) -> float:
    """`value` inchs in miles."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["inch"] / LENGTH_IN_BASE["mile"]


def inch_to_nautical_mile(value: float) -> float:
    """`value` inchs in nautical miles."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["inch"] / LENGTH_IN_BASE["nautical_mile"]


def foot_to_millimetre(value: float) -> float:
    """`value` foots in millimetres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["foot"] / LENGTH_IN_BASE["millimetre"]


def foot_to_centimetre(value: float) -> float:
    """`value` foots in centimetres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["foot"] / LENGTH_IN_BASE["centimetre"]


def foot_to_metre(value: float) -> float:
    """`value` foots in metres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["foot"] / LENGTH_IN_BASE["metre"]


def foot_to_kilometre(value: float) -> float:
    """`value` foots in kilometres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["foot"] / LENGTH_IN_BASE["kilometre"]


def foot_to_inch(value: float) -> float:
    """`value` foots in inchs."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["foot"] / LENGTH_IN_BASE["inch"]


def foot_to_yard(value: float) -> float:
    """`value` foots in yards."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["foot"] / LENGTH_IN_BASE["yard"]


def foot_to_mile(value: float) -> float:
    """`value` foots in miles."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["foot"] / LENGTH_IN_BASE["mile"]


def foot_to_nautical_mile(value: float) -> float:
    """`value` foots in nautical miles."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["foot"] / LENGTH_IN_BASE["nautical_mile"]


def yard_to_millimetre(value: float) -> float:
    """`value` yards in millimetres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["yard"] / LENGTH_IN_BASE["millimetre"]


def yard_to_centimetre(value: float) -> float:
    """`value` yards in centimetres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["yard"] / LENGTH_IN_BASE["centimetre"]


def yard_to_metre(value: float) -> float:
    """`value` yards in metres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["yard"] / LENGTH_IN_BASE["metre"]


def yard_to_kilometre(value: float) -> float:
    """`value` yards in kilometres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["yard"] / LENGTH_IN_BASE["kilometre"]


def yard_to_inch(value: float) -> float:
    """`value` yards in inchs."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["yard"] / LENGTH_IN_BASE["inch"]


def yard_to_foot(value: float) -> float:
    """`value` yards in foots."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["yard"] / LENGTH_IN_BASE["foot"]


def yard_to_mile(value: float) -> float:
    """`value` yards in miles."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["yard"] / LENGTH_IN_BASE["mile"]


def yard_to_nautical_mile(value: float) -> float:
    """`value` yards in nautical miles."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["yard"] / LENGTH_IN_BASE["nautical_mile"]


def mile_to_millimetre(value: float) -> float:
    """`value` miles in millimetres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["mile"] / LENGTH_IN_BASE["millimetre"]


def mile_to_centimetre(value: float) -> float:
    """`value` miles in centimetres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["mile"] / LENGTH_IN_BASE["centimetre"]


def mile_to_metre(value: float) -> float:
    """`value` miles in metres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["mile"] / LENGTH_IN_BASE["metre"]


def mile_to_kilometre(value: float) -> float:
    """`value` miles in kilometres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["mile"] / LENGTH_IN_BASE["kilometre"]


def mile_to_inch(value: float) -> float:
    """`value` miles in inchs."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["mile"] / LENGTH_IN_BASE["inch"]


def mile_to_foot(value: float) -> float:
    """`value` miles in foots."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["mile"] / LENGTH_IN_BASE["foot"]


def mile_to_yard(value: float) -> float:
    """`value` miles in yards."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["mile"] / LENGTH_IN_BASE["yard"]


def mile_to_nautical_mile(value: float) -> float:
    """`value` miles in nautical miles."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["mile"] / LENGTH_IN_BASE["nautical_mile"]


def nautical_mile_to_millimetre(value: float) -> float:
    """`value` nautical miles in millimetres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["nautical_mile"] / LENGTH_IN_BASE["millimetre"]


def nautical_mile_to_centimetre(value: float) -> float:
    """`value` nautical miles in centimetres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["nautical_mile"] / LENGTH_IN_BASE["centimetre"]


def nautical_mile_to_metre(value: float) -> float:
    """`value` nautical miles in metres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["nautical_mile"] / LENGTH_IN_BASE["metre"]


def nautical_mile_to_kilometre(value: float) -> float:
    """`value` nautical miles in kilometres."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["nautical_mile"] / LENGTH_IN_BASE["kilometre"]


def nautical_mile_to_inch(value: float) -> float:
    """`value` nautical miles in inchs."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["nautical_mile"] / LENGTH_IN_BASE["inch"]


def nautical_mile_to_foot(value: float) -> float:
    """`value` nautical miles in foots."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["nautical_mile"] / LENGTH_IN_BASE["foot"]


def nautical_mile_to_yard(value: float) -> float:
    """`value` nautical miles in yards."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["nautical_mile"] / LENGTH_IN_BASE["yard"]


def nautical_mile_to_mile(value: float) -> float:
    """`value` nautical miles in miles."""
    if value != value:  # NaN stays NaN
        return value
    return value * LENGTH_IN_BASE["nautical_mile"] / LENGTH_IN_BASE["mile"]


def milligram_to_gram(value: float) -> float:
    """`value` milligrams in grams."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["milligram"] / MASS_IN_BASE["gram"]


def milligram_to_kilogram(value: float) -> float:
    """`value` milligrams in kilograms."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["milligram"] / MASS_IN_BASE["kilogram"]


def milligram_to_tonne(value: float) -> float:
    """`value` milligrams in tonnes."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["milligram"] / MASS_IN_BASE["tonne"]


def milligram_to_ounce(value: float) -> float:
    """`value` milligrams in ounces."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["milligram"] / MASS_IN_BASE["ounce"]


def milligram_to_pound(value: float) -> float:
    """`value` milligrams in pounds."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["milligram"] / MASS_IN_BASE["pound"]


def milligram_to_stone(value: float) -> float:
    """`value` milligrams in stones."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["milligram"] / MASS_IN_BASE["stone"]


def gram_to_milligram(value: float) -> float:
    """`value` grams in milligrams."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["gram"] / MASS_IN_BASE["milligram"]


def gram_to_kilogram(value: float) -> float:
    """`value` grams in kilograms."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["gram"] / MASS_IN_BASE["kilogram"]


def gram_to_tonne(value: float) -> float:
    """`value` grams in tonnes."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["gram"] / MASS_IN_BASE["tonne"]


def gram_to_ounce(value: float) -> float:
    """`value` grams in ounces."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["gram"] / MASS_IN_BASE["ounce"]


def gram_to_pound(value: float) -> float:
    """`value` grams in pounds."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["gram"] / MASS_IN_BASE["pound"]


def gram_to_stone(value: float) -> float:
    """`value` grams in stones."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["gram"] / MASS_IN_BASE["stone"]


def kilogram_to_milligram(value: float) -> float:
    """`value` kilograms in milligrams."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["kilogram"] / MASS_IN_BASE["milligram"]


def kilogram_to_gram(value: float) -> float:
    """`value` kilograms in grams."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["kilogram"] / MASS_IN_BASE["gram"]


def kilogram_to_tonne(value: float) -> float:
    """`value` kilograms in tonnes."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["kilogram"] / MASS_IN_BASE["tonne"]


def kilogram_to_ounce(value: float) -> float:
    """`value` kilograms in ounces."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["kilogram"] / MASS_IN_BASE["ounce"]


def kilogram_to_pound(value: float) -> float:
    """`value` kilograms in pounds."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["kilogram"] / MASS_IN_BASE["pound"]


def kilogram_to_stone(value: float) -> float:
    """`value` kilograms in stones."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["kilogram"] / MASS_IN_BASE["stone"]


def tonne_to_milligram(value: float) -> float:
    """`value` tonnes in milligrams."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["tonne"] / MASS_IN_BASE["milligram"]


def tonne_to_gram(value: float) -> float:
    """`value` tonnes in grams."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["tonne"] / MASS_IN_BASE["gram"]


def tonne_to_kilogram(value: float) -> float:
    """`value` tonnes in kilograms."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["tonne"] / MASS_IN_BASE["kilogram"]


def tonne_to_ounce(value: float) -> float:
    """`value` tonnes in ounces."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["tonne"] / MASS_IN_BASE["ounce"]


def tonne_to_pound(value: float) -> float:
    """`value` tonnes in pounds."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["tonne"] / MASS_IN_BASE["pound"]


def tonne_to_stone(value: float) -> float:
    """`value` tonnes in stones."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["tonne"] / MASS_IN_BASE["stone"]


def ounce_to_milligram(value: float) -> float:
    """`value` ounces in milligrams."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["ounce"] / MASS_IN_BASE["milligram"]


def ounce_to_gram(value: float) -> float:
    """`value` ounces in grams."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["ounce"] / MASS_IN_BASE["gram"]


def ounce_to_kilogram(value: float) -> float:
    """`value` ounces in kilograms."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["ounce"] / MASS_IN_BASE["kilogram"]


def ounce_to_tonne(value: float) -> float:
    """`value` ounces in tonnes."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["ounce"] / MASS_IN_BASE["tonne"]


def ounce_to_pound(value: float) -> float:
    """`value` ounces in pounds."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["ounce"] / MASS_IN_BASE["pound"]


def ounce_to_stone(value: float) -> float:
    """`value` ounces in stones."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["ounce"] / MASS_IN_BASE["stone"]


def pound_to_milligram(value: float) -> float:
    """`value` pounds in milligrams."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["pound"] / MASS_IN_BASE["milligram"]


def pound_to_gram(value: float) -> float:
    """`value` pounds in grams."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["pound"] / MASS_IN_BASE["gram"]


def pound_to_kilogram(value: float) -> float:
    """`value` pounds in kilograms."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["pound"] / MASS_IN_BASE["kilogram"]


def pound_to_tonne(value: float) -> float:
    """`value` pounds in tonnes."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["pound"] / MASS_IN_BASE["tonne"]


def pound_to_ounce(value: float) -> float:
    """`value` pounds in ounces."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["pound"] / MASS_IN_BASE["ounce"]


def pound_to_stone(value: float) -> float:
    """`value` pounds in stones."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["pound"] / MASS_IN_BASE["stone"]


def stone_to_milligram(value: float) -> float:
    """`value` stones in milligrams."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["stone"] / MASS_IN_BASE["milligram"]


def stone_to_gram(value: float) -> float:
    """`value` stones in grams."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["stone"] / MASS_IN_BASE["gram"]


def stone_to_kilogram(value: float) -> float:
    """`value` stones in kilograms."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["stone"] / MASS_IN_BASE["kilogram"]


def stone_to_tonne(value: float) -> float:
    """`value` stones in tonnes."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["stone"] / MASS_IN_BASE["tonne"]


def stone_to_ounce(value: float) -> float:
    """`value` stones in ounces."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["stone"] / MASS_IN_BASE["ounce"]


def stone_to_pound(value: float) -> float:
    """`value` stones in pounds."""
    if value != value:  # NaN stays NaN
        return value
    return value * MASS_IN_BASE["stone"] / MASS_IN_BASE["pound"]


def millisecond_to_second(value: float) -> float:
    """`value` milliseconds in seconds."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["millisecond"] / TIME_IN_BASE["second"]


def millisecond_to_minute(value: float) -> float:
    """`value` milliseconds in minutes."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["millisecond"] / TIME_IN_BASE["minute"]


def millisecond_to_hour(value: float) -> float:
    """`value` milliseconds in hours."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["millisecond"] / TIME_IN_BASE["hour"]


def millisecond_to_day(value: float) -> float:
    """`value` milliseconds in days."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["millisecond"] / TIME_IN_BASE["day"]


def millisecond_to_week(value: float) -> float:
    """`value` milliseconds in weeks."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["millisecond"] / TIME_IN_BASE["week"]


def second_to_millisecond(value: float) -> float:
    """`value` seconds in milliseconds."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["second"] / TIME_IN_BASE["millisecond"]


def second_to_minute(value: float) -> float:
    """`value` seconds in minutes."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["second"] / TIME_IN_BASE["minute"]


def second_to_hour(value: float) -> float:
    """`value` seconds in hours."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["second"] / TIME_IN_BASE["hour"]


def second_to_day(value: float) -> float:
    """`value` seconds in days."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["second"] / TIME_IN_BASE["day"]


def second_to_week(value: float) -> float:
    """`value` seconds in weeks."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["second"] / TIME_IN_BASE["week"]


def minute_to_millisecond(value: float) -> float:
    """`value` minutes in milliseconds."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["minute"] / TIME_IN_BASE["millisecond"]


def minute_to_second(value: float) -> float:
    """`value` minutes in seconds."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["minute"] / TIME_IN_BASE["second"]


def minute_to_hour(value: float) -> float:
    """`value` minutes in hours."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["minute"] / TIME_IN_BASE["hour"]


def minute_to_day(value: float) -> float:
    """`value` minutes in days."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["minute"] / TIME_IN_BASE["day"]


def minute_to_week(value: float) -> float:
    """`value` minutes in weeks."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["minute"] / TIME_IN_BASE["week"]


def hour_to_millisecond(value: float) -> float:
    """`value` hours in milliseconds."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["hour"] / TIME_IN_BASE["millisecond"]


def hour_to_second(value: float) -> float:
    """`value` hours in seconds."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["hour"] / TIME_IN_BASE["second"]


def hour_to_minute(value: float) -> float:
    """`value` hours in minutes."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["hour"] / TIME_IN_BASE["minute"]


def hour_to_day(value: float) -> float:
    """`value` hours in days."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["hour"] / TIME_IN_BASE["day"]


def hour_to_week(value: float) -> float:
    """`value` hours in weeks."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["hour"] / TIME_IN_BASE["week"]


def day_to_millisecond(value: float) -> float:
    """`value` days in milliseconds."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["day"] / TIME_IN_BASE["millisecond"]


def day_to_second(value: float) -> float:
    """`value` days in seconds."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["day"] / TIME_IN_BASE["second"]


def day_to_minute(value: float) -> float:
    """`value` days in minutes."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["day"] / TIME_IN_BASE["minute"]


def day_to_hour(value: float) -> float:
    """`value` days in hours."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["day"] / TIME_IN_BASE["hour"]


def day_to_week(value: float) -> float:
    """`value` days in weeks."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["day"] / TIME_IN_BASE["week"]


def week_to_millisecond(value: float) -> float:
    """`value` weeks in milliseconds."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["week"] / TIME_IN_BASE["millisecond"]


def week_to_second(value: float) -> float:
    """`value` weeks in seconds."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["week"] / TIME_IN_BASE["second"]


def week_to_minute(value: float) -> float:
    """`value` weeks in minutes."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["week"] / TIME_IN_BASE["minute"]


def week_to_hour(value: float) -> float:
    """`value` weeks in hours."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["week"] / TIME_IN_BASE["hour"]


def week_to_day(value: float) -> float:
    """`value` weeks in days."""
    if value != value:  # NaN stays NaN
        return value
    return value * TIME_IN_BASE["week"] / TIME_IN_BASE["day"]


def millilitre_to_litre(value: float) -> float:
    """`value` millilitres in litres."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["millilitre"] / VOLUME_IN_BASE["litre"]


def millilitre_to_cubic_metre(value: float) -> float:
    """`value` millilitres in cubic metres."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["millilitre"] / VOLUME_IN_BASE["cubic_metre"]


def millilitre_to_us_gallon(value: float) -> float:
    """`value` millilitres in us gallons."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["millilitre"] / VOLUME_IN_BASE["us_gallon"]


def millilitre_to_imperial_gallon(value: float) -> float:
    """`value` millilitres in imperial gallons."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["millilitre"] / VOLUME_IN_BASE["imperial_gallon"]


def millilitre_to_us_cup(value: float) -> float:
    """`value` millilitres in us cups."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["millilitre"] / VOLUME_IN_BASE["us_cup"]


def litre_to_millilitre(value: float) -> float:
    """`value` litres in millilitres."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["litre"] / VOLUME_IN_BASE["millilitre"]


def litre_to_cubic_metre(value: float) -> float:
    """`value` litres in cubic metres."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["litre"] / VOLUME_IN_BASE["cubic_metre"]


def litre_to_us_gallon(value: float) -> float:
    """`value` litres in us gallons."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["litre"] / VOLUME_IN_BASE["us_gallon"]


def litre_to_imperial_gallon(value: float) -> float:
    """`value` litres in imperial gallons."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["litre"] / VOLUME_IN_BASE["imperial_gallon"]


def litre_to_us_cup(value: float) -> float:
    """`value` litres in us cups."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["litre"] / VOLUME_IN_BASE["us_cup"]


def cubic_metre_to_millilitre(value: float) -> float:
    """`value` cubic metres in millilitres."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["cubic_metre"] / VOLUME_IN_BASE["millilitre"]


def cubic_metre_to_litre(value: float) -> float:
    """`value` cubic metres in litres."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["cubic_metre"] / VOLUME_IN_BASE["litre"]


def cubic_metre_to_us_gallon(value: float) -> float:
    """`value` cubic metres in us gallons."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["cubic_metre"] / VOLUME_IN_BASE["us_gallon"]


def cubic_metre_to_imperial_gallon(value: float) -> float:
    """`value` cubic metres in imperial gallons."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["cubic_metre"] / VOLUME_IN_BASE["imperial_gallon"]


def cubic_metre_to_us_cup(value: float) -> float:
    """`value` cubic metres in us cups."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["cubic_metre"] / VOLUME_IN_BASE["us_cup"]


def us_gallon_to_millilitre(value: float) -> float:
    """`value` us gallons in millilitres."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["us_gallon"] / VOLUME_IN_BASE["millilitre"]


def us_gallon_to_litre(value: float) -> float:
    """`value` us gallons in litres."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["us_gallon"] / VOLUME_IN_BASE["litre"]


def us_gallon_to_cubic_metre(value: float) -> float:
    """`value` us gallons in cubic metres."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["us_gallon"] / VOLUME_IN_BASE["cubic_metre"]


def us_gallon_to_imperial_gallon(value: float) -> float:
    """`value` us gallons in imperial gallons."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["us_gallon"] / VOLUME_IN_BASE["imperial_gallon"]


def us_gallon_to_us_cup(value: float) -> float:
    """`value` us gallons in us cups."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["us_gallon"] / VOLUME_IN_BASE["us_cup"]


def imperial_gallon_to_millilitre(value: float) -> float:
    """`value` imperial gallons in millilitres."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["imperial_gallon"] / VOLUME_IN_BASE["millilitre"]


def imperial_gallon_to_litre(value: float) -> float:
    """`value` imperial gallons in litres."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["imperial_gallon"] / VOLUME_IN_BASE["litre"]


def imperial_gallon_to_cubic_metre(value: float) -> float:
    """`value` imperial gallons in cubic metres."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["imperial_gallon"] / VOLUME_IN_BASE["cubic_metre"]


def imperial_gallon_to_us_gallon(value: float) -> float:
    """`value` imperial gallons in us gallons."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["imperial_gallon"] / VOLUME_IN_BASE["us_gallon"]


def imperial_gallon_to_us_cup(value: float) -> float:
    """`value` imperial gallons in us cups."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["imperial_gallon"] / VOLUME_IN_BASE["us_cup"]


def us_cup_to_millilitre(value: float) -> float:
    """`value` us cups in millilitres."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["us_cup"] / VOLUME_IN_BASE["millilitre"]


def us_cup_to_litre(value: float) -> float:
    """`value` us cups in litres."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["us_cup"] / VOLUME_IN_BASE["litre"]


def us_cup_to_cubic_metre(value: float) -> float:
    """`value` us cups in cubic metres."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["us_cup"] / VOLUME_IN_BASE["cubic_metre"]


def us_cup_to_us_gallon(value: float) -> float:
    """`value` us cups in us gallons."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["us_cup"] / VOLUME_IN_BASE["us_gallon"]


def us_cup_to_imperial_gallon(value: float) -> float:
    """`value` us cups in imperial gallons."""
    if value != value:  # NaN stays NaN
        return value
    return value * VOLUME_IN_BASE["us_cup"] / VOLUME_IN_BASE["imperial_gallon"]


def joule_to_kilojoule(value: float) -> float:
    """`value` joules in kilojoules."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["joule"] / ENERGY_IN_BASE["kilojoule"]


def joule_to_calorie(value: float) -> float:
    """`value` joules in calories."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["joule"] / ENERGY_IN_BASE["calorie"]


def joule_to_kilocalorie(value: float) -> float:
    """`value` joules in kilocalories."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["joule"] / ENERGY_IN_BASE["kilocalorie"]


def joule_to_watt_hour(value: float) -> float:
    """`value` joules in watt hours."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["joule"] / ENERGY_IN_BASE["watt_hour"]


def joule_to_kilowatt_hour(value: float) -> float:
    """`value` joules in kilowatt hours."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["joule"] / ENERGY_IN_BASE["kilowatt_hour"]


def joule_to_btu(value: float) -> float:
    """`value` joules in btus."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["joule"] / ENERGY_IN_BASE["btu"]


def kilojoule_to_joule(value: float) -> float:
    """`value` kilojoules in joules."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["kilojoule"] / ENERGY_IN_BASE["joule"]


def kilojoule_to_calorie(value: float) -> float:
    """`value` kilojoules in calories."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["kilojoule"] / ENERGY_IN_BASE["calorie"]


def kilojoule_to_kilocalorie(value: float) -> float:
    """`value` kilojoules in kilocalories."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["kilojoule"] / ENERGY_IN_BASE["kilocalorie"]


def kilojoule_to_watt_hour(value: float) -> float:
    """`value` kilojoules in watt hours."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["kilojoule"] / ENERGY_IN_BASE["watt_hour"]


def kilojoule_to_kilowatt_hour(value: float) -> float:
    """`value` kilojoules in kilowatt hours."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["kilojoule"] / ENERGY_IN_BASE["kilowatt_hour"]


def kilojoule_to_btu(value: float) -> float:
    """`value` kilojoules in btus."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["kilojoule"] / ENERGY_IN_BASE["btu"]


def calorie_to_joule(value: float) -> float:
    """`value` calories in joules."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["calorie"] / ENERGY_IN_BASE["joule"]


def calorie_to_kilojoule(value: float) -> float:
    """`value` calories in kilojoules."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["calorie"] / ENERGY_IN_BASE["kilojoule"]


def calorie_to_kilocalorie(value: float) -> float:
    """`value` calories in kilocalories."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["calorie"] / ENERGY_IN_BASE["kilocalorie"]


def calorie_to_watt_hour(value: float) -> float:
    """`value` calories in watt hours."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["calorie"] / ENERGY_IN_BASE["watt_hour"]


def calorie_to_kilowatt_hour(value: float) -> float:
    """`value` calories in kilowatt hours."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["calorie"] / ENERGY_IN_BASE["kilowatt_hour"]


def calorie_to_btu(value: float) -> float:
    """`value` calories in btus."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["calorie"] / ENERGY_IN_BASE["btu"]


def kilocalorie_to_joule(value: float) -> float:
    """`value` kilocalories in joules."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["kilocalorie"] / ENERGY_IN_BASE["joule"]


def kilocalorie_to_kilojoule(value: float) -> float:
    """`value` kilocalories in kilojoules."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["kilocalorie"] / ENERGY_IN_BASE["kilojoule"]


def kilocalorie_to_calorie(value: float) -> float:
    """`value` kilocalories in calories."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["kilocalorie"] / ENERGY_IN_BASE["calorie"]


def kilocalorie_to_watt_hour(value: float) -> float:
    """`value` kilocalories in watt hours."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["kilocalorie"] / ENERGY_IN_BASE["watt_hour"]


def kilocalorie_to_kilowatt_hour(value: float) -> float:
    """`value` kilocalories in kilowatt hours."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["kilocalorie"] / ENERGY_IN_BASE["kilowatt_hour"]


def kilocalorie_to_btu(value: float) -> float:
    """`value` kilocalories in btus."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["kilocalorie"] / ENERGY_IN_BASE["btu"]


def watt_hour_to_joule(value: float) -> float:
    """`value` watt hours in joules."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["watt_hour"] / ENERGY_IN_BASE["joule"]


def watt_hour_to_kilojoule(value: float) -> float:
    """`value` watt hours in kilojoules."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["watt_hour"] / ENERGY_IN_BASE["kilojoule"]


def watt_hour_to_calorie(value: float) -> float:
    """`value` watt hours in calories."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["watt_hour"] / ENERGY_IN_BASE["calorie"]


def watt_hour_to_kilocalorie(value: float) -> float:
    """`value` watt hours in kilocalories."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["watt_hour"] / ENERGY_IN_BASE["kilocalorie"]


def watt_hour_to_kilowatt_hour(value: float) -> float:
    """`value` watt hours in kilowatt hours."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["watt_hour"] / ENERGY_IN_BASE["kilowatt_hour"]


def watt_hour_to_btu(value: float) -> float:
    """`value` watt hours in btus."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["watt_hour"] / ENERGY_IN_BASE["btu"]


def kilowatt_hour_to_joule(value: float) -> float:
    """`value` kilowatt hours in joules."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["kilowatt_hour"] / ENERGY_IN_BASE["joule"]


def kilowatt_hour_to_kilojoule(value: float) -> float:
    """`value` kilowatt hours in kilojoules."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["kilowatt_hour"] / ENERGY_IN_BASE["kilojoule"]


def kilowatt_hour_to_calorie(value: float) -> float:
    """`value` kilowatt hours in calories."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["kilowatt_hour"] / ENERGY_IN_BASE["calorie"]


def kilowatt_hour_to_kilocalorie(value: float) -> float:
    """`value` kilowatt hours in kilocalories."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["kilowatt_hour"] / ENERGY_IN_BASE["kilocalorie"]


def kilowatt_hour_to_watt_hour(value: float) -> float:
    """`value` kilowatt hours in watt hours."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["kilowatt_hour"] / ENERGY_IN_BASE["watt_hour"]


def kilowatt_hour_to_btu(value: float) -> float:
    """`value` kilowatt hours in btus."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["kilowatt_hour"] / ENERGY_IN_BASE["btu"]


def btu_to_joule(value: float) -> float:
    """`value` btus in joules."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["btu"] / ENERGY_IN_BASE["joule"]


def btu_to_kilojoule(value: float) -> float:
    """`value` btus in kilojoules."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["btu"] / ENERGY_IN_BASE["kilojoule"]


def btu_to_calorie(value: float) -> float:
    """`value` btus in calories."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["btu"] / ENERGY_IN_BASE["calorie"]


def btu_to_kilocalorie(value: float) -> float:
    """`value` btus in kilocalories."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["btu"] / ENERGY_IN_BASE["kilocalorie"]


def btu_to_watt_hour(value: float) -> float:
    """`value` btus in watt hours."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["btu"] / ENERGY_IN_BASE["watt_hour"]


def btu_to_kilowatt_hour(value: float) -> float:
    """`value` btus in kilowatt hours."""
    if value != value:  # NaN stays NaN
        return value
    return value * ENERGY_IN_BASE["btu"] / ENERGY_IN_BASE["kilowatt_hour"]


SIZE_UNITS = ["B", "KiB", "MiB", "GiB", "TiB"]


def human_size(n: int) -> str:
    """`n` bytes for people: "512 B", "1.0 KiB", "1.5 MiB" (powers of 1024, one decimal)."""
    if n < 0:
        raise ValueError("sizes are not negative")
    if n <= 1024:
        return f"{n} B"
    value = float(n)
    for unit in SIZE_UNITS[1:]:
        value /= 1024
        if value < 1024 or unit == SIZE_UNITS[-1]:
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")
