// The value types of the probe node after a restore, beside what they must be.
MATCH (a:BackupProbe {id: 'values'})-[r:PROBE]->(:BackupProbe:Second {id: 'other'})
RETURN [k IN ['t', 'tz', 'd', 'lt', 'ldt', 'tt', 'du', 'p', 'g', 'nan', 'ls', 'li', 'lf', 'lb', 'ld', 'n', 'f',
              'embedding'] | valueType(a[k])] + [toString(a.t), toString(a.du), valueType(r.at)] AS types,
       ['ZONED DATETIME NOT NULL', 'ZONED DATETIME NOT NULL', 'DATE NOT NULL', 'LOCAL TIME NOT NULL',
        'LOCAL DATETIME NOT NULL', 'ZONED TIME NOT NULL', 'DURATION NOT NULL', 'POINT NOT NULL', 'POINT NOT NULL',
        'FLOAT NOT NULL', 'LIST<STRING NOT NULL> NOT NULL', 'LIST<INTEGER NOT NULL> NOT NULL',
        'LIST<FLOAT NOT NULL> NOT NULL', 'LIST<BOOLEAN NOT NULL> NOT NULL', 'LIST<DATE NOT NULL> NOT NULL',
        'INTEGER NOT NULL', 'FLOAT NOT NULL', 'LIST<FLOAT NOT NULL> NOT NULL',
        '2024-01-01T10:00:00.123456789+01:00[Europe/Berlin]', 'P1Y2M3DT4H5.5S', 'ZONED DATETIME NOT NULL'] AS expected
