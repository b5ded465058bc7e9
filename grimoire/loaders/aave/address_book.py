"""Reading the Aave address book's TypeScript files (src/ts/*.ts): constants, ASSETS, E_MODES."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_CONST = re.compile(r"^export const (\w+) = '(0x[0-9a-fA-F]{40})';", re.M)
_CHAIN = re.compile(r"^export const CHAIN_ID = (\d+);", re.M)
_BLOCK = r"^export const {name} = \{{\n(.*?)^\}}(?: as const)?;"
_ENTRY = re.compile(r"^  '?([^':\s]+)'?: \{\n(.*?)^  \},", re.M | re.S)
_FIELD = re.compile(r"^\s+(\w+): '(0x[0-9a-fA-F]{40})',", re.M)
_NUMBER = re.compile(r"^\s+(\w+): (\d+),", re.M)
_LABEL = re.compile(r"^\s+label: '([^']*)',", re.M)
_LIST = re.compile(r"(\w+Assets): \[(.*?)\]", re.S)
_ADDR = re.compile(r"0x[0-9a-fA-F]{40}")

RESERVE_FIELDS = ("UNDERLYING", "A_TOKEN", "V_TOKEN", "INTEREST_RATE_STRATEGY", "ORACLE")


@dataclass
class Reserve:
    symbol: str
    addresses: dict[str, str]  # RESERVE_FIELDS (and others) to addresses
    decimals: int | None = None


@dataclass
class EMode:
    id: str
    label: str
    assets: list[str]  # underlying addresses, collateral and borrowable


@dataclass
class SourceFile:
    name: str                      # file stem, e.g. AaveV3Ethereum
    chain_id: int | None
    constants: dict[str, str]      # NAME -> address
    reserves: list[Reserve] = field(default_factory=list)
    emodes: list[EMode] = field(default_factory=list)


def _block(text: str, name: str) -> str | None:
    m = re.search(_BLOCK.format(name=name), text, re.M | re.S)
    return m.group(1) if m else None


def parse(path: Path) -> SourceFile:
    text = path.read_text()
    chain = _CHAIN.search(text)
    src = SourceFile(path.stem, int(chain.group(1)) if chain else None, dict(_CONST.findall(text)))
    assets = _block(text, "ASSETS")
    if assets:
        for symbol, body in _ENTRY.findall(assets):
            numbers = dict(_NUMBER.findall(body))
            src.reserves.append(Reserve(symbol, dict(_FIELD.findall(body)),
                                        int(numbers["decimals"]) if "decimals" in numbers else None))
    emodes = _block(text, "E_MODES")
    if emodes:
        for mode_id, body in _ENTRY.findall(emodes):
            label = _LABEL.search(body)
            assets_in = [a for kind, items in _LIST.findall(body) if kind in ("collateralAssets", "borrowableAssets")
                         for a in _ADDR.findall(items)]
            src.emodes.append(EMode(mode_id, label.group(1) if label else mode_id, list(dict.fromkeys(assets_in))))
    return src


def read_all(folder: Path) -> list[SourceFile]:
    return [parse(p) for p in sorted(folder.glob("*.ts"))]


def chain_ids(files: list[SourceFile]) -> dict[str, int]:
    """Chain names (the file-name suffix: Ethereum, Arbitrum...) to chain ids."""
    out: dict[str, int] = {}
    for f in files:
        m = re.match(r"^(?:AaveV[23]|GovernanceV3|Misc|Gho)(\w+)$", f.name)
        if m and f.chain_id is not None:
            out.setdefault(m.group(1), f.chain_id)
    return out
