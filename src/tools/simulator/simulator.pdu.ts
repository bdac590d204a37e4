import type { OutletInput } from '../../ingest/report.protocol.js';
import type { SimDevice } from './simulator.model.js';
import { between, createWave, hash32, unit, waveAt, waveIntegral } from './simulator.noise.js';

// A power distribution unit's outlets and temperature at any time, from its
// key alone (docs/reports.md, `outlets` and `temperatureCelsius`).

/** What hangs off each outlet of a PDU, by outlet number - 1, with its typical draw in watts (0: nothing plugged in). */
const OUTLETS: readonly (readonly [label: string, watts: number])[] = [
  ['Core switch', 180],
  ['Controller', 45],
  ['PoE injector', 60],
  ['NAS', 90],
  ['Server 1', 320],
  ['Server 2', 280],
  ['Camera NVR', 70],
  ['Spare', 0],
];
/** Outlets are switched in slots this long (6 hours): each slot an outlet that may be switched is on or off. */
const SLOT_SECONDS = 6 * 3600;
/** The chance that a switchable outlet is off in a slot. */
const OFF_CHANCE = 0.25;
/** The energy counters are reset weekly, at a time of the week fixed by the outlet. */
const RESET_SECONDS = 7 * 86_400;
const NOMINAL_VOLTS = 230;

/** True when the outlet is switched on in the slot holding `t`: the spare never, the first two always, the rest now and then off. */
function isOn(device: SimDevice, outlet: number, t: number): boolean {
  if ((OUTLETS[outlet - 1]?.[1] ?? 0) === 0) return false;
  if (outlet <= 2) return true;
  return unit(device.key, 60, outlet, Math.floor(t / SLOT_SECONDS)) >= OFF_CHANCE;
}

/** The outlet's draw while on: its typical watts, busiest at 14:00 local time, with noise. */
function load(device: SimDevice, outlet: number) {
  const peakSecond = (((14 * 3600 - device.network.utcOffsetSeconds) % 86_400) + 86_400) % 86_400;
  const watts = (OUTLETS[outlet - 1]?.[1] ?? 0) * between(0.8, 1.2, device.key, 61, outlet);
  return createWave(watts, 0.35, peakSecond, 0.15, hash32(device.key, 62, outlet));
}

/** The energy (kWh) the outlet delivered from its last counter reset to `t`: the load's integral over the slots it was on. */
function energyAt(device: SimDevice, outlet: number, t: number): number {
  const offset = Math.floor(unit(device.key, 63, outlet) * RESET_SECONDS);
  const reset = Math.floor((t - offset) / RESET_SECONDS) * RESET_SECONDS + offset;
  const wave = load(device, outlet);
  let joules = 0;
  for (let slot = Math.floor(reset / SLOT_SECONDS); slot * SLOT_SECONDS < t; slot++) {
    const from = Math.max(reset, slot * SLOT_SECONDS);
    if (isOn(device, outlet, from)) joules += waveIntegral(wave, from, Math.min(t, (slot + 1) * SLOT_SECONDS));
  }
  return Math.round((joules / 3.6e6) * 1000) / 1000;
}

/** What a PDU reports at `t` beside its ports: its outlets and its temperature, which follows its load and the time of day. */
export function pduReadings(device: SimDevice, t: number): { temperatureCelsius: number; outlets: OutletInput[] } {
  const volts = waveAt(createWave(NOMINAL_VOLTS, 0, 0, 0.01, hash32(device.key, 64)), t);
  const outlets = OUTLETS.map(([label], i): OutletInput => {
    const outlet = i + 1;
    const on = isOn(device, outlet, t);
    const watts = on ? waveAt(load(device, outlet), t) : 0;
    return {
      outletNumber: outlet,
      label,
      isOn: on,
      currentAmps: Math.round((watts / volts) * 1000) / 1000,
      powerWatts: Math.round(watts * 10) / 10,
      voltageVolts: Math.round(volts * 10) / 10,
      energyKWh: energyAt(device, outlet, t),
    };
  });
  const total = outlets.reduce((sum, o) => sum + (o.powerWatts ?? 0), 0);
  const ambient = waveAt(createWave(26, 0.06, (((15 * 3600 - device.network.utcOffsetSeconds) % 86_400) + 86_400) % 86_400, 0.02, hash32(device.key, 65)), t);
  return { temperatureCelsius: Math.round((ambient + total / 200) * 10) / 10, outlets };
}
