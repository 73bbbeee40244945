"""Raw Massachusetts files read straight from disk (no database), for reviewing the question set.

Everything here is independent of the loader and of PostGIS: CSV and GeoJSON are parsed with
the standard library, coordinates go from WGS84 to EPSG:26986 with pyproj, and lines and
polygons are handled with GDAL/OGR (GEOS). bench/rawcheck.py builds on it.
"""
from __future__ import annotations

import csv
import datetime as dt
import json
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("MAPASK_DATA_DIR", ROOT.parent / "shared" / "data" / "massachusetts"))


def _blank(v):
    return None if v is None or v == "" else v


class _Proj:
    def __init__(self):
        from pyproj import Transformer
        self.t = Transformer.from_crs("EPSG:4326", "EPSG:26986", always_xy=True)

    def xy(self, lon, lat):
        if lon is None or lat is None:
            return (np.nan, np.nan)
        x, y = self.t.transform(float(lon), float(lat))
        return (x, y)


_PROJ = None


def proj() -> _Proj:
    global _PROJ
    if _PROJ is None:
        _PROJ = _Proj()
    return _PROJ


def ogr_geom(geojson_geometry: dict):
    """A GeoJSON geometry (WGS84) as an OGR geometry in EPSG:26986."""
    from osgeo import ogr, osr
    osr.UseExceptions() if hasattr(osr, "UseExceptions") else None
    src = osr.SpatialReference()
    src.ImportFromEPSG(4326)
    src.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    dst = osr.SpatialReference()
    dst.ImportFromEPSG(26986)
    dst.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    g = ogr.CreateGeometryFromJson(json.dumps(geojson_geometry))
    g.Transform(osr.CoordinateTransformation(src, dst))
    return g


def ogr_point(x, y):
    from osgeo import ogr
    p = ogr.Geometry(ogr.wkbPoint)
    p.AddPoint_2D(float(x), float(y))
    return p


def within_points(P: np.ndarray, T: np.ndarray, d: float) -> np.ndarray:
    """For each point of P (N x 2, NaN = no geometry): is some point of T within d metres?"""
    out = np.zeros(len(P), dtype=bool)
    if len(T) == 0:
        return out
    ok = ~np.isnan(P[:, 0])
    idx = np.nonzero(ok)[0]
    for s in range(0, len(idx), 400):
        chunk = idx[s:s + 400]
        dx = P[chunk, 0][:, None] - T[None, :, 0]
        dy = P[chunk, 1][:, None] - T[None, :, 1]
        out[chunk] = (np.sqrt(dx * dx + dy * dy) <= d).any(axis=1)
    return out


def near_each(P: np.ndarray, T: np.ndarray, d: float) -> np.ndarray:
    """Matrix (len(T) x len(P)) of 'point j of P within d of target i'."""
    dx = T[:, None, 0] - P[None, :, 0]
    dy = T[:, None, 1] - P[None, :, 1]
    with np.errstate(invalid="ignore"):
        return np.sqrt(dx * dx + dy * dy) <= d


def within_geoms(P: np.ndarray, geoms: list, d: float) -> np.ndarray:
    """For each point: within d metres of any of the OGR geometries (envelope pre-filter)."""
    out = np.zeros(len(P), dtype=bool)
    envs = [g.GetEnvelope() for g in geoms]  # (minx, maxx, miny, maxy)
    for k, (x, y) in enumerate(P):
        if np.isnan(x):
            continue
        pt = None
        for g, (x0, x1, y0, y1) in zip(geoms, envs):
            if x < x0 - d or x > x1 + d or y < y0 - d or y > y1 + d:
                continue
            pt = pt or ogr_point(x, y)
            if g.Distance(pt) <= d:
                out[k] = True
                break
    return out


def in_polygon(P: np.ndarray, poly) -> np.ndarray:
    out = np.zeros(len(P), dtype=bool)
    x0, x1, y0, y1 = poly.GetEnvelope()
    for k, (x, y) in enumerate(P):
        if np.isnan(x) or x < x0 or x > x1 or y < y0 or y > y1:
            continue
        out[k] = poly.Intersects(ogr_point(x, y))
    return out


@dataclass
class Massdot:
    crash_numb: int
    town: str | None
    date: dt.date
    time: dt.time | None
    manner: str | None
    light: str | None
    weather: str | None
    surface: str | None
    yngst: str | None
    oldest: str | None
    county: str | None
    severity: str | None


@dataclass
class CamCrash:
    gid: int
    object_1: str | None
    object_2: str | None
    day_of_week: str | None
    year: int
    bike: bool
    ped: bool


@dataclass
class BikeCrash:
    gid: int
    when: dt.datetime
    street: str | None
    manner: str | None
    weather1: str | None
    light: str | None
    surface: str | None
    season: str | None


def _geojson(name):
    return json.loads((DATA_DIR / name).read_text(encoding="utf-8"))["features"]


class Raw:
    """Lazy access to every raw layer, with EPSG:26986 coordinates."""

    # ---------------------------------------------------------------- crash tables
    @cached_property
    def _massdot(self):
        recs, xy = [], []
        with open(DATA_DIR / "massdot_crashes_2017_sample.csv", encoding="utf-8-sig", newline="") as fh:
            for r in csv.DictReader(fh):
                r = {k: _blank(v) for k, v in r.items()}
                t = r["CRASH_TIME"]
                recs.append(Massdot(
                    crash_numb=int(float(r["CRASH_NUMB"])), town=r["CITY_TOWN_NAME"],
                    date=dt.datetime.strptime(r["CRASH_DATE"], "%m/%d/%Y").date(),
                    time=dt.datetime.strptime(t, "%I:%M %p").time() if t else None,
                    manner=r["MANR_COLL_DESCR"], light=r["AMBNT_LIGHT_DESCR"],
                    weather=r["WEATH_COND_DESCR"], surface=r["ROAD_SURF_COND_DESCR"],
                    yngst=r["AGE_DRVR_YNGST"], oldest=r["AGE_DRVR_OLDEST"],
                    county=r["CNTY_NAME"], severity=r["CRASH_SEVERITY_DESCR"]))
                xy.append(proj().xy(r["LON"], r["LAT"]))
        return recs, np.array(xy, dtype=float)

    @property
    def massdot(self) -> list[Massdot]:
        return self._massdot[0]

    @property
    def massdot_xy(self) -> np.ndarray:
        return self._massdot[1]

    @cached_property
    def _cam(self):
        recs, xy = [], []
        for gid, f in enumerate(_geojson("cambridge_crashes_2010_2017.geojson"), start=1):
            p = f["properties"]
            recs.append(CamCrash(gid, _blank(p.get("Object 1")), _blank(p.get("Object 2")),
                                 _blank(p.get("Day of Week")), int(p["Year"]),
                                 bool(p["Bicycle Involved"]), bool(p["Pedestrian Involved"])))
            g = f.get("geometry")
            xy.append(proj().xy(*g["coordinates"][:2]) if g else (np.nan, np.nan))
        return recs, np.array(xy, dtype=float)

    @property
    def cam(self) -> list[CamCrash]:
        return self._cam[0]

    @property
    def cam_xy(self) -> np.ndarray:
        return self._cam[1]

    @cached_property
    def _bike(self):
        recs, xy = [], []
        with open(DATA_DIR / "cambridge_bicycle_crashes_2015_2025.csv", encoding="utf-8-sig", newline="") as fh:
            for gid, r in enumerate(csv.DictReader(fh), start=1):
                r = {k: _blank(v) for k, v in r.items()}
                recs.append(BikeCrash(
                    gid, dt.datetime.strptime(r["Date Time"], "%Y-%m-%d %H:%M:%S"),
                    r["Street Name Cleaned"], r["Manner of Collision"], r["Weather Condition 1"],
                    r["Ambient Light"], r["Road Surface Condition"], r["Season"]))
                xy.append(proj().xy(r["Longitude"], r["Latitude"]))
        return recs, np.array(xy, dtype=float)

    @property
    def bike(self) -> list[BikeCrash]:
        return self._bike[0]

    @property
    def bike_xy(self) -> np.ndarray:
        return self._bike[1]

    # ---------------------------------------------------------------- reference layers
    @cached_property
    def town_pop(self) -> dict[str, int]:
        return {f["properties"]["town"]: f["properties"]["pop2010"] for f in _geojson("ma_towns.geojson")}

    @cached_property
    def schools(self) -> list[dict]:
        out = []
        for name, kind in (("cambridge_landmark_publicschools.geojson", "public"),
                           ("cambridge_landmark_privateschools.geojson", "private")):
            for f in _geojson(name):
                out.append({"site_name": f["properties"]["SITE_NAME"], "type": kind,
                            "xy": proj().xy(*f["geometry"]["coordinates"][:2])})
        return out

    def school_xy(self, pred=lambda s: True) -> tuple[list[dict], np.ndarray]:
        ss = [s for s in self.schools if pred(s)]
        return ss, np.array([s["xy"] for s in ss], dtype=float).reshape(-1, 2)

    @cached_property
    def neighborhoods(self) -> dict[str, object]:
        return {f["properties"]["NAME"]: ogr_geom(f["geometry"])
                for f in _geojson("cambridge_boundary_cddneighborhoods.geojson")}

    @cached_property
    def centerlines(self) -> list[tuple[str, object]]:
        return [(f["properties"].get("Street"), ogr_geom(f["geometry"]))
                for f in _geojson("cambridge_trans_centerlines.geojson")]

    def street(self, name: str) -> list:
        return [g for s, g in self.centerlines if s == name]

    @cached_property
    def signals_xy(self) -> np.ndarray:
        return np.array([proj().xy(*f["geometry"]["coordinates"][:2])
                         for f in _geojson("cambridge_traffic_signals.geojson")], dtype=float)

    @cached_property
    def ramps_xy(self) -> np.ndarray:
        return np.array([proj().xy(*f["geometry"]["coordinates"][:2])
                         for f in _geojson("cambridge_pedestrian_ramps.geojson")], dtype=float)

    @cached_property
    def shelters(self) -> list:
        return [ogr_geom(f["geometry"]) for f in _geojson("cambridge_trans_busshelters.geojson")]

    @cached_property
    def bike_facilities(self) -> list[tuple[int, str, object]]:
        return [(gid, f["properties"].get("FacilityType"), ogr_geom(f["geometry"]))
                for gid, f in enumerate(_geojson("cambridge_bike_facilities.geojson"), start=1)]

    @cached_property
    def intersections(self) -> list[tuple[str, tuple]]:
        return [(f["properties"].get("Intersection"), proj().xy(*f["geometry"]["coordinates"][:2]))
                for f in _geojson("cambridge_trans_intersections.geojson")]

    @cached_property
    def stops(self) -> list[dict]:
        out = []
        with open(DATA_DIR / "mbta_gtfs_stops.txt", encoding="utf-8-sig", newline="") as fh:
            for gid, r in enumerate(csv.DictReader(fh), start=1):
                vt = _blank(r["vehicle_type"])
                out.append({"gid": gid, "vehicle_type": int(float(vt)) if vt else None,
                            "municipality": _blank(r["municipality"]),
                            "xy": proj().xy(_blank(r["stop_lon"]), _blank(r["stop_lat"]))})
        return out

    def bus_stops_xy(self) -> np.ndarray:
        return np.array([s["xy"] for s in self.stops if s["vehicle_type"] == 3], dtype=float)
