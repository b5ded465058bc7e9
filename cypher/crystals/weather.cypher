// The network cortisol override (graph/crystals/hormonal_state.py), if one was ever set.
MATCH (w:NetworkWeather {id: 'network'})
RETURN w {.level, .reason, .valid_from, .valid_until, .set_by} AS weather
