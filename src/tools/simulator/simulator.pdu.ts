import type { OutletInput } from '../../ingest/report.protocol.js';
import type { SimDevice } from './simulator.model.js';
import { between, createWave, hash32, unit, waveAt, waveIntegral } from './simulator.noise.js';
import type { Wave } from './simulator.noise.js';

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

/**
 * What a PDU's readings are computed from, fixed per device: its supply and
 * outlets' waves, and per outlet the energy of the whole slots since its last
 * reset summed so far, so a report adds the slots since the one before
 * instead of integrating up to a week again (the same additions in the same
 * order, so the same value).
 */
interface PduModel {
  readonly volts: Wave;
  readonly ambient: Wave;
  readonly loads: readonly Wave[];
  readonly energy: { reset: number; nextSlot: number; joules: number }[];
}

const models = new WeakMap<SimDevice, PduModel>();

function modelOf(device: SimDevice): PduModel {
  let model = models.get(device);
  if (model === undefined) {
    const ambientPeak = (((15 * 3600 - device.network.utcOffsetSeconds) % 86_400) + 86_400) % 86_400;
    model = {
      volts: createWave(NOMINAL_VOLTS, 0, 0, 0.01, hash32(device.key, 64)),
      ambient: createWave(26, 0.06, ambientPeak, 0.02, hash32(device.key, 65)),
      loads: OUTLETS.map((_, i) => load(device, i + 1)),
      energy: OUTLETS.map(() => ({ reset: NaN, nextSlot: 0, joules: 0 })),
    };
    models.set(device, model);
  }
  return model;
}

/** The energy (kWh) the outlet delivered from its last counter reset to `t`: the load's integral over the slots it was on. */
function energyAt(device: SimDevice, model: PduModel, outlet: number, t: number): number {
  const offset = Math.floor(unit(device.key, 63, outlet) * RESET_SECONDS);
  const reset = Math.floor((t - offset) / RESET_SECONDS) * RESET_SECONDS + offset;
  const wave = model.loads[outlet - 1] as Wave;
  const first = Math.floor(reset / SLOT_SECONDS);
  // the last slot that starts before t: the slots before it are whole
  const last = Math.ceil(t / SLOT_SECONDS) - 1;
  const whole = model.energy[outlet - 1] as PduModel['energy'][number];
  if (whole.reset !== reset || whole.nextSlot > last) Object.assign(whole, { reset, nextSlot: first, joules: 0 });
  const integral = (slot: number, to: number) => {
    const from = Math.max(reset, slot * SLOT_SECONDS);
    return isOn(device, outlet, from) ? waveIntegral(wave, from, to) : 0;
  };
  for (; whole.nextSlot < last; whole.nextSlot++) whole.joules += integral(whole.nextSlot, (whole.nextSlot + 1) * SLOT_SECONDS);
  const joules = last >= first ? whole.joules + integral(last, Math.min(t, (last + 1) * SLOT_SECONDS)) : whole.joules;
  return Math.round((joules / 3.6e6) * 1000) / 1000;
}

/** What a PDU reports at `t` beside its ports: its outlets and its temperature, which follows its load and the time of day. */
export function pduReadings(device: SimDevice, t: number): { temperatureCelsius: number; outlets: OutletInput[] } {
  const model = modelOf(device);
  const volts = waveAt(model.volts, t);
  const outlets = OUTLETS.map(([label], i): OutletInput => {
    const outlet = i + 1;
    const on = isOn(device, outlet, t);
    const watts = on ? waveAt(model.loads[i] as Wave, t) : 0;
    return {
      outletNumber: outlet,
      label,
      isOn: on,
      currentAmps: Math.round((watts / volts) * 1000) / 1000,
      powerWatts: Math.round(watts * 10) / 10,
      voltageVolts: Math.round(volts * 10) / 10,
      energyKWh: energyAt(device, model, outlet, t),
    };
  });
  const total = outlets.reduce((sum, o) => sum + (o.powerWatts ?? 0), 0);
  const ambient = waveAt(model.ambient, t);
  return { temperatureCelsius: Math.round((ambient + total / 200) * 10) / 10, outlets };
}
