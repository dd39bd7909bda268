#!/usr/bin/env python3
"""Test helper: for each JPEG, whether libultrahdr (the imagecodecs wheel) reads it as Ultra HDR, and
which gain-map claims its bytes make anywhere (hdrgm, GContainer and Apple HDRGainMap XMP namespaces,
ISO 21496-1 blocks, MPF indexes). A file imgprep writes must be one or the other: read as Ultra HDR,
or free of claims.

  gainmap_claims.py FILE...

Prints one JSON object per file, one per line: {"file", "ultrahdr" (bool), "error" (libultrahdr's
message or null), "claims" (list of what was found; "no file" when there is none)}."""
import json, sys
import imagecodecs

CLAIMS = {
    'hdrgm': b'http://ns.adobe.com/hdr-gain-map/1.0/',
    'GContainer': b'http://ns.google.com/photos/1.0/container/',
    'AppleHDRGainMap': b'http://ns.apple.com/HDRGainMap/1.0/',
    'ISO21496': b'urn:iso:std:iso:ts:21496:-1',
    'MPF': b'\xff\xe2\x00',  # refined below: an APP2 segment whose payload starts MPF\0
}


def claims(data):
    found = [name for name, needle in CLAIMS.items() if name != 'MPF' and needle in data]
    i = 0
    while True:
        i = data.find(b'\xff\xe2', i)
        if i < 0:
            break
        if data[i + 4:i + 8] == b'MPF\x00':
            found.append('MPF')
            break
        i += 2
    return found


def main():
    for path in sys.argv[1:]:
        try:
            data = open(path, 'rb').read()
        except OSError as exc:
            print(json.dumps({'file': path, 'ultrahdr': False, 'error': str(exc), 'claims': ['no file']}))
            continue
        ok, error = False, None
        try:
            if imagecodecs.ultrahdr_check(data):
                imagecodecs.ultrahdr_decode(data)
                ok = True
            else:
                error = 'not Ultra HDR'
        except Exception as exc:  # libultrahdr's refusal, as the wheel raises it
            error = str(exc)
        print(json.dumps({'file': path, 'ultrahdr': ok, 'error': error, 'claims': claims(data)}))


if __name__ == '__main__':
    main()
