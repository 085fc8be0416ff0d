/**
 * Writes the company-docs corpus: the handbook, policies and product pages of Nordwind Robotics, a
 * fictional maker of warehouse robots, in English and German (Markdown, text, HTML and PDF), with
 * the labelled questions each document answers, the environment's tasks and its search index. Deterministic: the same options write the same
 * bytes, so the committed corpus is this script's output.
 *
 *   npx tsx examples/company-docs/generate.ts                          # the example (docs/, queries.jsonl, tasks.jsonl)
 *   npx tsx examples/company-docs/generate.ts --out /tmp/big --products 940 --newsletters 60 --no-index   # the benchmark's
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { buildIndex, chunkDocuments, readDocuments, saveIndex } from "rubricate/corpus";

type Lang = "en" | "de";
type Format = "md" | "txt" | "html" | "pdf";

interface Section {
  heading: string;
  paragraphs: string[];
}

/** A question a user would ask, the answer, and a phrase of the passage that answers it. */
interface Fact {
  question: string;
  answer: string;
  evidence: string;
}

interface Doc {
  path: string;
  lang: Lang;
  format: Format;
  title: string;
  sections: Section[];
  facts: Fact[];
}

/** mulberry32: a small seeded generator, so the corpus is the same on every machine. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)],
    chance: (p: number) => next() < p,
  };
}

const BIRDS = "Kestrel Heron Osprey Falcon Merlin Plover Curlew Dunlin Gannet Puffin Tern Wren Robin Finch Swift Martin Lapwing Avocet Egret Ibis Kite Harrier Buzzard Raven Rook Jackdaw Magpie Starling Linnet Siskin Bunting Pipit Warbler Thrush Oriole Shrike Hoopoe Bittern Crane Stork".split(" ");
const KINDS: Record<Lang, string[]> = {
  en: ["warehouse robot", "pallet scanner", "conveyor sensor", "charging dock", "inventory drone", "safety light curtain"],
  de: ["Lagerroboter", "Palettenscanner", "Förderbandsensor", "Ladestation", "Inventurdrohne", "Sicherheitslichtvorhang"],
};
const PLANTS = { en: ["Dublin", "Toronto", "Leeds"], de: ["Hamburg", "Graz", "Köln"] };
const OFFICES: Record<Lang, string[]> = {
  en: ["Dublin", "Toronto", "Austin", "Leeds", "Cork", "Boston", "Glasgow", "Denver"],
  de: ["Hamburg", "München", "Wien", "Zürich", "Köln", "Graz", "Düsseldorf", "Münster"],
};
const PEOPLE = "Aoife Byrne|Liam Chen|Priya Nair|Tomás Walsh|Grace Okafor|Jonas Weber|Lena Müller|Sören Schäfer|Anna Gruber|Björn Krämer|Mia Hoffmann|Felix Brandt|Clara Jäger|Noah Fischer|Emma Wagner|Luca Bauer".split("|");
const TEAMS: Record<Lang, string[]> = {
  en: ["Finance", "Legal", "Logistics", "Customer Success", "Research", "Manufacturing", "Quality", "Marketing", "People", "IT Operations"],
  de: ["Buchhaltung", "Rechtsabteilung", "Logistik", "Kundenservice", "Forschung", "Fertigung", "Qualitätssicherung", "Marketing", "Personalwesen", "IT-Betrieb"],
};
const ROLES = { en: ["the team lead", "the head of department", "the finance controller", "two senior engineers"], de: ["die Teamleitung", "die Abteilungsleitung", "das Controlling", "zwei Senior-Ingenieure"] };
const TOOLS = ["PagerDuty", "Opsgenie", "Slack", "the Fleet Console", "Jira", "SAP Concur", "Workday", "Confluence"];

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/ä/g, "ae")
    .replace(/ö/g, "oe")
    .replace(/ü/g, "ue")
    .replace(/ß/g, "ss")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

function product(i: number, lang: Lang, r: ReturnType<typeof rng>): Doc {
  const name = `${BIRDS[i % BIRDS.length]} ${String.fromCharCode(65 + (Math.floor(i / BIRDS.length) % 26))}${1 + Math.floor(i / (BIRDS.length * 26))}`;
  const kind = r.pick(KINDS[lang]);
  const [w, p, h, rc, v] = [r.int(8, 90) / 2, r.int(20, 900), r.int(4, 30), r.int(20, 180), r.int(5, 40) / 10];
  const [price, vol, wy, ey, ep, m, sla, year] = [r.int(9, 180) * 100, r.int(5, 50), r.int(2, 5), r.int(2, 3), r.int(2, 40) * 50, r.int(2, 12), r.int(4, 48), r.int(2015, 2025)];
  const [stop, spare, dock, ship, service] = [r.int(10, 90), r.int(8, 60) * 10, r.int(3, 30) * 50, r.int(2, 20), r.int(5, 40) * 100];
  const email = `support-${slug(name)}@nordwind.example`;
  const plant = r.pick(PLANTS[lang]);
  const format: Format = i % 3 === 0 ? "html" : "md";
  if (lang === "en") {
    return {
      path: `products/${slug(name)}.${format}`, lang, format, title: `${name} ${kind}`,
      sections: [
        { heading: "Overview", paragraphs: [`The ${name} is a ${kind} for busy warehouses and distribution centres. It was introduced in ${year} and is built in our ${plant} plant.`] },
        { heading: "Specifications", paragraphs: [`The ${name} weighs ${w} kg and carries payloads of up to ${p} kg. On a full charge its battery lasts ${h} hours; recharging takes ${rc} minutes. Its top speed is ${v} metres per second.`] },
        { heading: "Pricing and warranty", paragraphs: [`The list price is ${price} euros per unit, with volume discounts from ${vol} units. Every unit comes with a ${wy}-year warranty; an extended warranty of ${ey} more years costs ${ep} euros.`] },
        { heading: "Safety", paragraphs: [`When its sensors detect a person, the ${name} stops within ${stop} centimetres. It meets ISO 3691-4 for driverless industrial trucks and may share aisles with people.`] },
        { heading: "Accessories", paragraphs: [`A spare battery pack for the ${name} costs ${spare} euros; a second charging dock costs ${dock} euros. Both are ordered through your account manager.`] },
        { heading: "Shipping", paragraphs: [`The ${name} ships on a pallet within ${ship} working days of the order. Delivery inside the EU is free; other destinations are quoted on request.`] },
        { heading: "Maintenance", paragraphs: [`Have the ${name} serviced every ${service} operating hours. The service kit contains wheels, filters and a battery check, and takes a technician about an hour.`] },
        { heading: "Support", paragraphs: [`Firmware updates for the ${name} are released every ${m} months. Support requests go to ${email} and are answered within ${sla} business hours.`] },
      ],
      facts: [
        { question: `What does the ${name} weigh?`, answer: `${w} kg`, evidence: `weighs ${w} kg` },
        { question: `How many hours does one charge of the ${name} battery last?`, answer: `${h} hours`, evidence: `battery lasts ${h} hours` },
        { question: `How much is the extended warranty for the ${name}?`, answer: `${ep} euros for ${ey} more years`, evidence: `costs ${ep} euros` },
        { question: `How often is new firmware released for the ${name}?`, answer: `every ${m} months`, evidence: `every ${m} months` },
        { question: `Where should I send a support request about the ${name}?`, answer: email, evidence: email },
        { question: `How quickly does the ${name} stop for a person?`, answer: `within ${stop} centimetres`, evidence: `stops within ${stop} centimetres` },
        { question: `What do spare batteries for the ${name} cost?`, answer: `${spare} euros`, evidence: `spare battery pack for the ${name} costs ${spare} euros` },
        { question: `How many working days until the ${name} is shipped?`, answer: `within ${ship} working days`, evidence: `within ${ship} working days` },
        { question: `After how many operating hours does the ${name} need servicing?`, answer: `every ${service} operating hours`, evidence: `every ${service} operating hours` },
      ],
    };
  }
  return {
    path: `produkte/${slug(name)}.${format}`, lang, format, title: `${name} ${kind}`,
    sections: [
      { heading: "Überblick", paragraphs: [`Der ${name} ist ein ${kind} für Lager und Verteilzentren mit hohem Durchsatz. Er kam ${year} auf den Markt und wird in unserem Werk ${plant} gebaut.`] },
      { heading: "Technische Daten", paragraphs: [`Der ${name} wiegt ${String(w).replace(".", ",")} kg und trägt Lasten bis zu ${p} kg. Mit einer vollen Akkuladung arbeitet er ${h} Stunden; das Aufladen dauert ${rc} Minuten. Seine Höchstgeschwindigkeit beträgt ${String(v).replace(".", ",")} Meter pro Sekunde.`] },
      { heading: "Preise und Garantie", paragraphs: [`Der Listenpreis beträgt ${price} Euro pro Gerät, Mengenrabatte gibt es ab ${vol} Geräten. Jedes Gerät hat ${wy} Jahre Garantie; eine Garantieverlängerung um ${ey} Jahre kostet ${ep} Euro.`] },
      { heading: "Sicherheit", paragraphs: [`Erkennen seine Sensoren eine Person, hält der ${name} innerhalb von ${stop} Zentimetern an. Er erfüllt ISO 3691-4 für fahrerlose Flurförderzeuge und darf Gänge mit Menschen teilen.`] },
      { heading: "Zubehör", paragraphs: [`Ein Ersatzakku für den ${name} kostet ${spare} Euro; eine zweite Ladestation kostet ${dock} Euro. Beides bestellen Sie über Ihre Kundenbetreuung.`] },
      { heading: "Versand", paragraphs: [`Der ${name} wird innerhalb von ${ship} Werktagen nach der Bestellung auf einer Palette verschickt. Die Lieferung innerhalb der EU ist kostenlos; andere Ziele auf Anfrage.`] },
      { heading: "Wartung", paragraphs: [`Lassen Sie den ${name} alle ${service} Betriebsstunden warten. Das Wartungsset enthält Räder, Filter und eine Akkuprüfung; ein Techniker braucht etwa eine Stunde.`] },
      { heading: "Support", paragraphs: [`Firmware-Updates für den ${name} erscheinen alle ${m} Monate. Supportanfragen gehen an ${email} und werden innerhalb von ${sla} Geschäftsstunden beantwortet.`] },
    ],
    facts: [
      { question: `Wie viel wiegt der ${name}?`, answer: `${String(w).replace(".", ",")} kg`, evidence: `wiegt ${String(w).replace(".", ",")} kg` },
      { question: `Wie viele Stunden arbeitet der ${name} mit einer Akkuladung?`, answer: `${h} Stunden`, evidence: `arbeitet er ${h} Stunden` },
      { question: `Was kostet die Garantieverlängerung für den ${name}?`, answer: `${ep} Euro für ${ey} weitere Jahre`, evidence: `kostet ${ep} Euro` },
      { question: `Wie oft erscheint neue Firmware für den ${name}?`, answer: `alle ${m} Monate`, evidence: `alle ${m} Monate` },
      { question: `Wohin schicke ich eine Supportanfrage zum ${name}?`, answer: email, evidence: email },
      { question: `Wie schnell hält der ${name} für eine Person an?`, answer: `innerhalb von ${stop} Zentimetern`, evidence: `innerhalb von ${stop} Zentimetern` },
      { question: `Was kosten Ersatzakkus für den ${name}?`, answer: `${spare} Euro`, evidence: `Ersatzakku für den ${name} kostet ${spare} Euro` },
      { question: `Nach wie vielen Werktagen wird der ${name} verschickt?`, answer: `innerhalb von ${ship} Werktagen`, evidence: `innerhalb von ${ship} Werktagen` },
      { question: `Nach wie vielen Betriebsstunden muss der ${name} gewartet werden?`, answer: `alle ${service} Betriebsstunden`, evidence: `alle ${service} Betriebsstunden` },
    ],
  };
}

function officeGuide(city: string, lang: Lang, r: ReturnType<typeof rng>): Doc {
  const [no, open, close, spaces, days, bike, remote, core1, core2, ext] = [r.int(1, 120), r.int(7, 9), r.int(17, 20), r.int(12, 240), r.int(1, 7), r.int(2, 12) * 5, r.int(1, 4), r.int(9, 10), r.int(14, 16), r.int(100, 899)];
  const person = r.pick(PEOPLE);
  const format: Format = lang === "en" ? "md" : r.chance(0.5) ? "md" : "html";
  if (lang === "en") {
    return {
      path: `offices/${slug(city)}-office-guide.${format}`, lang, format, title: `${city} office guide`,
      sections: [
        { heading: "Getting there", paragraphs: [`The ${city} office is at ${no} Harbour Street. Reception is staffed from ${open}:00 to ${close}:00 on weekdays.`] },
        { heading: "Parking and bikes", paragraphs: [`There are ${spaces} parking spaces in the garage; book yours in the Desk app at least ${days} days ahead. Employees who cycle to work receive a bike allowance of ${bike} euros per month.`] },
        { heading: "Remote work", paragraphs: [`Staff at the ${city} office may work remotely up to ${remote} days per week. Core hours are ${core1}:00 to ${core2}:00.`] },
        { heading: "Emergencies", paragraphs: [`The first-aid officer for ${city} is ${person}, extension ${ext}. In a fire, leave by the nearest stairs and gather at the assembly point in front of the main entrance.`] },
      ],
      facts: [
        { question: `How many parking spaces does the ${city} office have?`, answer: `${spaces}`, evidence: `${spaces} parking spaces` },
        { question: `How large is the monthly cycling allowance at the ${city} office?`, answer: `${bike} euros per month`, evidence: `bike allowance of ${bike} euros` },
        { question: `How many days a week can staff of the ${city} office work remotely?`, answer: `up to ${remote} days`, evidence: `up to ${remote} days per week` },
        { question: `Who is the first-aid officer in ${city}?`, answer: `${person}, extension ${ext}`, evidence: person },
        { question: `When is the reception of the ${city} office staffed?`, answer: `${open}:00 to ${close}:00 on weekdays`, evidence: `from ${open}:00 to ${close}:00` },
      ],
    };
  }
  return {
    path: `standorte/${slug(city)}-standortleitfaden.${format}`, lang, format, title: `Standortleitfaden ${city}`,
    sections: [
      { heading: "Anfahrt", paragraphs: [`Das Büro ${city} liegt in der Hafenstraße ${no}. Der Empfang ist werktags von ${open}:00 bis ${close}:00 Uhr besetzt.`] },
      { heading: "Parken und Fahrräder", paragraphs: [`In der Tiefgarage gibt es ${spaces} Stellplätze; reservieren Sie Ihren in der Desk-App mindestens ${days} Tage im Voraus. Wer mit dem Fahrrad zur Arbeit fährt, erhält einen Fahrradzuschuss von ${bike} Euro im Monat.`] },
      { heading: "Mobiles Arbeiten", paragraphs: [`Beschäftigte am Standort ${city} dürfen bis zu ${remote} Tage pro Woche mobil arbeiten. Die Kernarbeitszeit ist von ${core1}:00 bis ${core2}:00 Uhr.`] },
      { heading: "Notfälle", paragraphs: [`Ersthelfer für ${city} ist ${person}, Durchwahl ${ext}. Bei Feuer verlassen Sie das Gebäude über die nächste Treppe und sammeln sich am Sammelplatz vor dem Haupteingang.`] },
    ],
    facts: [
      { question: `Wie viele Stellplätze hat das Büro ${city}?`, answer: `${spaces}`, evidence: `${spaces} Stellplätze` },
      { question: `Wie hoch ist der monatliche Fahrradzuschuss am Standort ${city}?`, answer: `${bike} Euro im Monat`, evidence: `Fahrradzuschuss von ${bike} Euro` },
      { question: `Wie viele Tage pro Woche darf man am Standort ${city} mobil arbeiten?`, answer: `bis zu ${remote} Tage`, evidence: `bis zu ${remote} Tage pro Woche` },
      { question: `Wer ist Ersthelfer in ${city}?`, answer: `${person}, Durchwahl ${ext}`, evidence: person },
      { question: `Wann ist der Empfang im Büro ${city} besetzt?`, answer: `werktags ${open}:00 bis ${close}:00 Uhr`, evidence: `von ${open}:00 bis ${close}:00 Uhr` },
    ],
  };
}

const TOPICS: Record<Lang, { slug: string; title: (t: string) => string; make: (t: string, r: ReturnType<typeof rng>) => { paragraphs: string[]; fact: Fact } }[]> = {
  en: [
    { slug: "purchases", title: (t) => `${t}: approving purchases`, make: (t, r) => { const a = r.int(2, 40) * 250, role = r.pick(ROLES.en); return { paragraphs: [`This note explains how the ${t} team buys equipment, software and services.`, `In the ${t} team, purchases above ${a} euros need approval from ${role}. Smaller purchases can be ordered directly in the procurement portal.`, `Keep the invoice in the shared drive of the ${t} team.`], fact: { question: `Who approves purchases over ${a} euros in ${t}?`, answer: role, evidence: `above ${a} euros need approval` } }; } },
    { slug: "on-call", title: (t) => `${t}: on-call rotation`, make: (t, r) => { const d = r.int(3, 14), tool = r.pick(TOOLS); return { paragraphs: [`The ${t} team keeps one person on call outside office hours.`, `The on-call rotation of the ${t} team changes every ${d} days, and the person on call is paged through ${tool}.`, `Swap shifts only with the agreement of your team lead.`], fact: { question: `How many days does an on-call shift last in ${t}?`, answer: `every ${d} days`, evidence: `changes every ${d} days` } }; } },
    { slug: "retention", title: (t) => `${t}: keeping records`, make: (t, r) => { const y = r.int(2, 12); return { paragraphs: [`Records created by the ${t} team belong to the company.`, `The ${t} team keeps its records for ${y} years; after that they are deleted by the records office.`, `Personal data is removed earlier when its purpose ends.`], fact: { question: `How long does ${t} keep its records?`, answer: `${y} years`, evidence: `records for ${y} years` } }; } },
    { slug: "onboarding", title: (t) => `${t}: onboarding new hires`, make: (t, r) => { const w = r.int(1, 8), person = r.pick(PEOPLE); return { paragraphs: [`Every new hire in the ${t} team gets a buddy for the first weeks.`, `Onboarding in the ${t} team lasts ${w} weeks and is coordinated by ${person}.`, `The buddy introduces the new colleague to the tools the team uses.`], fact: { question: `Who is in charge of onboarding new colleagues in ${t}?`, answer: person, evidence: `coordinated by ${person}` } }; } },
    { slug: "meetings", title: (t) => `${t}: team meetings`, make: (t, r) => { const day = r.pick(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]), hh = r.int(9, 16); return { paragraphs: [`The ${t} team meets once a week to plan its work.`, `The weekly meeting of the ${t} team is on ${day} at ${hh}:00 and lasts at most 45 minutes.`, `Notes are shared in the team channel the same day.`], fact: { question: `When does the ${t} team meet every week?`, answer: `${day} at ${hh}:00`, evidence: `on ${day} at ${hh}:00` } }; } },
    { slug: "training", title: (t) => `${t}: training budget`, make: (t, r) => { const b = r.int(4, 30) * 100; return { paragraphs: [`Learning is part of the job in the ${t} team.`, `Each member of the ${t} team has a yearly training budget of ${b} euros for courses, books and conferences.`, `Unused budget does not carry over to the next year.`], fact: { question: `How much training budget does each ${t} team member get per year?`, answer: `${b} euros`, evidence: `training budget of ${b} euros` } }; } },
  ],
  de: [
    { slug: "einkauf", title: (t) => `${t}: Einkäufe freigeben`, make: (t, r) => { const a = r.int(2, 40) * 250, role = r.pick(ROLES.de); return { paragraphs: [`Diese Notiz erklärt, wie das Team ${t} Geräte, Software und Dienstleistungen einkauft.`, `Im Team ${t} müssen Einkäufe über ${a} Euro von ${role} freigegeben werden. Kleinere Einkäufe werden direkt im Einkaufsportal bestellt.`, `Die Rechnung wird im gemeinsamen Laufwerk des Teams ${t} abgelegt.`], fact: { question: `Wer gibt im Team ${t} Einkäufe über ${a} Euro frei?`, answer: role, evidence: `über ${a} Euro von` } }; } },
    { slug: "rufbereitschaft", title: (t) => `${t}: Rufbereitschaft`, make: (t, r) => { const d = r.int(3, 14), tool = r.pick(TOOLS); return { paragraphs: [`Das Team ${t} hält außerhalb der Bürozeiten eine Person in Rufbereitschaft.`, `Die Rufbereitschaft im Team ${t} wechselt alle ${d} Tage; die Person in Bereitschaft wird über ${tool} alarmiert.`, `Dienste werden nur in Absprache mit der Teamleitung getauscht.`], fact: { question: `Alle wie viele Tage wechselt die Bereitschaft im Team ${t}?`, answer: `alle ${d} Tage`, evidence: `wechselt alle ${d} Tage` } }; } },
    { slug: "aufbewahrung", title: (t) => `${t}: Aufbewahrung von Unterlagen`, make: (t, r) => { const y = r.int(2, 12); return { paragraphs: [`Unterlagen des Teams ${t} gehören dem Unternehmen.`, `Das Team ${t} bewahrt seine Unterlagen ${y} Jahre lang auf; danach löscht sie die Registratur.`, `Personenbezogene Daten werden früher gelöscht, wenn ihr Zweck entfällt.`], fact: { question: `Wie lange hebt das Team ${t} seine Unterlagen auf?`, answer: `${y} Jahre`, evidence: `Unterlagen ${y} Jahre lang` } }; } },
    { slug: "einarbeitung", title: (t) => `${t}: Einarbeitung`, make: (t, r) => { const w = r.int(1, 8), person = r.pick(PEOPLE); return { paragraphs: [`Jede neue Kollegin und jeder neue Kollege im Team ${t} bekommt für die ersten Wochen einen Paten.`, `Die Einarbeitung im Team ${t} dauert ${w} Wochen und wird von ${person} koordiniert.`, `Der Pate stellt die Werkzeuge des Teams vor.`], fact: { question: `Wer kümmert sich im Team ${t} um die Einarbeitung neuer Kollegen?`, answer: person, evidence: `von ${person} koordiniert` } }; } },
    { slug: "teamrunde", title: (t) => `${t}: Teamrunde`, make: (t, r) => { const day = r.pick(["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag"]), hh = r.int(9, 16); return { paragraphs: [`Das Team ${t} trifft sich einmal pro Woche zur Planung.`, `Die wöchentliche Teamrunde von ${t} ist am ${day} um ${hh}:00 Uhr und dauert höchstens 45 Minuten.`, `Das Protokoll steht am selben Tag im Teamkanal.`], fact: { question: `Wann trifft sich das Team ${t} jede Woche?`, answer: `${day} um ${hh}:00 Uhr`, evidence: `am ${day} um ${hh}:00` } }; } },
    { slug: "weiterbildung", title: (t) => `${t}: Weiterbildungsbudget`, make: (t, r) => { const b = r.int(4, 30) * 100; return { paragraphs: [`Lernen gehört im Team ${t} zur Arbeit.`, `Jedes Mitglied des Teams ${t} hat ein jährliches Weiterbildungsbudget von ${b} Euro für Kurse, Bücher und Konferenzen.`, `Nicht genutztes Budget verfällt am Jahresende.`], fact: { question: `Wie viel Weiterbildungsbudget bekommt man im Team ${t} pro Jahr?`, answer: `${b} Euro`, evidence: `Weiterbildungsbudget von ${b} Euro` } }; } },
  ],
};

/** One team's handbook: a section per topic, each answering one question. */
function teamHandbook(team: string, lang: Lang, r: ReturnType<typeof rng>): Doc {
  const topics = TOPICS[lang].map((topic) => ({ topic, ...topic.make(team, r) }));
  const title = lang === "en" ? `${team} team handbook` : `Teamhandbuch ${team}`;
  return {
    path: `${lang === "en" ? "teams" : "teams-de"}/${slug(team)}.md`, lang, format: "md", title,
    sections: topics.map(({ topic, paragraphs }) => ({ heading: topic.title(team), paragraphs })),
    facts: topics.map((t) => t.fact),
  };
}

function newsletter(n: number, lang: Lang, products: Doc[], r: ReturnType<typeof rng>): Doc {
  const month = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"][n % 12];
  const monat = ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"][n % 12];
  const year = 2020 + Math.floor(n / 12);
  const mentions = [r.pick(products), r.pick(products), r.pick(products)].map((d) => d.title);
  const city = r.pick(OFFICES[lang]);
  // Distractors: they name products and offices, with none of the facts the questions ask.
  const sections: Section[] =
    lang === "en"
      ? [
          { heading: "From the warehouse floor", paragraphs: [`This month customers in three countries took delivery of the ${mentions[0]} and the ${mentions[1]}. The support team thanks everyone who answered requests over the holidays.`] },
          { heading: "Office news", paragraphs: [`The ${city} office repainted its meeting rooms, and the parking garage will be cleaned next week. Remember to book desks and parking spaces in the Desk app.`] },
          { heading: "People", paragraphs: [`Welcome to the new colleagues in Finance and Logistics. The ${mentions[2]} team celebrated a record quarter with a breakfast on Friday.`] },
        ]
      : [
          { heading: "Aus der Halle", paragraphs: [`Diesen Monat haben Kunden in drei Ländern den ${mentions[0]} und den ${mentions[1]} erhalten. Das Supportteam dankt allen, die über die Feiertage Anfragen beantwortet haben.`] },
          { heading: "Neues aus den Standorten", paragraphs: [`Im Büro ${city} wurden die Besprechungsräume gestrichen, und die Tiefgarage wird nächste Woche gereinigt. Denken Sie daran, Arbeitsplätze und Stellplätze in der Desk-App zu buchen.`] },
          { heading: "Menschen", paragraphs: [`Willkommen an die neuen Kolleginnen und Kollegen in Buchhaltung und Logistik. Das Team des ${mentions[2]} hat ein Rekordquartal mit einem Frühstück gefeiert.`] },
        ];
  const title = lang === "en" ? `Newsletter ${month} ${year}` : `Rundbrief ${monat} ${year}`;
  return { path: `${lang === "en" ? "newsletters" : "rundbriefe"}/${year}-${String((n % 12) + 1).padStart(2, "0")}.txt`, lang, format: "txt", title, sections, facts: [] };
}

/** The four PDFs: reports and codes that arrive as PDF in any real company. */
function reports(): Doc[] {
  return [
    {
      path: "reports/safety-report-2025.pdf", lang: "en", format: "pdf", title: "Annual Safety Report 2025",
      sections: [
        { heading: "Incidents", paragraphs: ["In 2025 Nordwind Robotics recorded 14 workplace incidents across all plants, down from 22 the year before. None of them caused a lost working day longer than a week."] },
        { heading: "Robot safety", paragraphs: ["Every robot leaving the plant passes a 38-point safety inspection. Collision sensors are recalibrated every 500 operating hours by a certified technician."] },
        { heading: "Training", paragraphs: ["All plant staff completed the forklift and robot-zone safety course, which takes 6 hours and is repeated every two years."] },
      ],
      facts: [
        { question: "How many workplace incidents were recorded in 2025?", answer: "14 (down from 22)", evidence: "14 workplace incidents" },
        { question: "How often are the collision sensors of robots recalibrated?", answer: "every 500 operating hours", evidence: "every 500 operating hours" },
      ],
    },
    {
      path: "berichte/arbeitssicherheit-2025.pdf", lang: "de", format: "pdf", title: "Jahresbericht Arbeitssicherheit 2025",
      sections: [
        { heading: "Unfälle", paragraphs: ["Im Jahr 2025 verzeichnete Nordwind Robotics an allen deutschen Standorten 9 meldepflichtige Arbeitsunfälle, nach 13 im Vorjahr."] },
        { heading: "Prüfungen", paragraphs: ["Alle Regalanlagen werden einmal jährlich von einer befähigten Person geprüft. Die Notausgänge werden monatlich begangen und das Ergebnis im Prüfbuch vermerkt."] },
        { heading: "Unterweisung", paragraphs: ["Die jährliche Sicherheitsunterweisung dauert 90 Minuten und ist für alle Beschäftigten Pflicht."] },
      ],
      facts: [
        { question: "Wie viele meldepflichtige Arbeitsunfälle gab es 2025 an den deutschen Standorten?", answer: "9 (nach 13 im Vorjahr)", evidence: "9 meldepflichtige Arbeitsunfälle" },
        { question: "Wie lange dauert die jährliche Sicherheitsunterweisung?", answer: "90 Minuten", evidence: "dauert 90 Minuten" },
      ],
    },
    {
      path: "reports/supplier-code-of-conduct.pdf", lang: "en", format: "pdf", title: "Supplier Code of Conduct",
      sections: [
        { heading: "Scope", paragraphs: ["This code applies to every supplier delivering parts, services or software to Nordwind Robotics."] },
        { heading: "Audits", paragraphs: ["Suppliers with a yearly volume above 250,000 euros are audited on site every 3 years. Findings must be fixed within 60 days."] },
        { heading: "Gifts", paragraphs: ["Employees may not accept gifts from suppliers worth more than 40 euros."] },
      ],
      facts: [
        { question: "How often are large suppliers audited on site?", answer: "every 3 years (yearly volume above 250,000 euros)", evidence: "audited on site every 3 years" },
        { question: "What is the largest gift an employee may accept from a supplier?", answer: "40 euros", evidence: "more than 40 euros" },
      ],
    },
    {
      path: "berichte/lieferantenkodex.pdf", lang: "de", format: "pdf", title: "Verhaltenskodex für Lieferanten",
      sections: [
        { heading: "Geltungsbereich", paragraphs: ["Dieser Kodex gilt für alle Lieferanten, die Teile, Dienstleistungen oder Software an Nordwind Robotics liefern."] },
        { heading: "Zahlungsziel", paragraphs: ["Rechnungen von Lieferanten werden innerhalb von 45 Tagen nach Eingang bezahlt, bei Skonto innerhalb von 10 Tagen."] },
      ],
      facts: [{ question: "Innerhalb welcher Frist werden Lieferantenrechnungen bezahlt?", answer: "45 Tage nach Eingang (10 Tage bei Skonto)", evidence: "innerhalb von 45 Tagen" }],
    },
  ];
}

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function render(doc: Doc): string {
  if (doc.format === "md") return `# ${doc.title}\n\n${doc.sections.map((s) => `## ${s.heading}\n\n${s.paragraphs.join("\n\n")}\n`).join("\n")}`;
  if (doc.format === "txt") return `${doc.title}\n\n${doc.sections.flatMap((s) => s.paragraphs).join("\n\n")}\n`;
  return `<!doctype html>\n<html lang="${doc.lang}">\n<head><meta charset="utf-8"><title>${escapeHtml(doc.title)} | Nordwind Robotics</title></head>\n<body>\n<nav><a href="/">Nordwind Robotics</a></nav>\n<main>\n<h1>${escapeHtml(doc.title)}</h1>\n${doc.sections.map((s) => `<section>\n<h2>${escapeHtml(s.heading)}</h2>\n${s.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join("\n")}\n</section>`).join("\n")}\n</main>\n</body>\n</html>\n`;
}

/** A plain one-column PDF; dates fixed so the bytes are the same on every run. */
async function renderPdf(doc: Doc): Promise<Uint8Array> {
  const pdf = await PDFDocument.create({ updateMetadata: false });
  pdf.setTitle(doc.title);
  pdf.setProducer("company-docs generate.ts");
  pdf.setCreationDate(new Date(0));
  pdf.setModificationDate(new Date(0));
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  let page = pdf.addPage([595, 842]);
  let y = 780;
  const line = (text: string, f = font, size = 11) => {
    if (y < 60) (page = pdf.addPage([595, 842])), (y = 780);
    page.drawText(text, { x: 56, y, size, font: f });
    y -= size + 6;
  };
  line(doc.title, bold, 18);
  for (const s of doc.sections) {
    y -= 10;
    line(s.heading, bold, 13);
    for (const p of s.paragraphs) {
      let current = "";
      for (const word of p.split(" ")) {
        if (font.widthOfTextAtSize(`${current} ${word}`, 11) > 480) line(current), (current = word);
        else current = current ? `${current} ${word}` : word;
      }
      if (current) line(current);
      y -= 6;
    }
  }
  return pdf.save({ useObjectStreams: false });
}

interface Options {
  out: string;
  products: number;
  newsletters: number;
  /** Also write search-index.json (the index the environment ships); the benchmark builds its own. */
  index: boolean;
}

function parseArgs(argv: string[]): Options {
  const here = dirname(fileURLToPath(import.meta.url));
  const opts: Options = { out: here, products: 150, newsletters: 24, index: true };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === "--no-index") (opts.index = false), i--;
    else if (flag === "--out") opts.out = value;
    else if (flag === "--products") opts.products = Number(value);
    else if (flag === "--newsletters") opts.newsletters = Number(value);
    else throw new Error(`unknown option ${flag} (use --out DIR --products N --newsletters N --no-index)`);
  }
  return opts;
}

/** Every document of the corpus, in a fixed order. */
export function corpus(opts: Pick<Options, "products" | "newsletters">): Doc[] {
  const r = rng(20260101);
  const langs: Lang[] = ["en", "de"];
  const products = Array.from({ length: opts.products }, (_, i) => product(i, langs[i % 2], r));
  const offices = langs.flatMap((lang) => OFFICES[lang].map((city) => officeGuide(city, lang, r)));
  const handbooks = langs.flatMap((lang) => TEAMS[lang].map((team) => teamHandbook(team, lang, r)));
  const news = Array.from({ length: opts.newsletters }, (_, n) => newsletter(Math.floor(n / 2), langs[n % 2], products, r));
  return [...products, ...offices, ...handbooks, ...news, ...reports()];
}

/** One labelled query: the question, the document that answers it, and a phrase of the answering passage. */
export interface LabelledQuery {
  id: string;
  lang: Lang;
  query: string;
  answer: string;
  doc: string;
  evidence: string;
}

/** Labelled queries: a few facts of every document that has some (a fixed pick, so the set is stable). */
export function labelledQueries(docs: Doc[], perDoc = 1): LabelledQuery[] {
  const r = rng(7);
  return docs.flatMap((d) => {
    const facts = [...d.facts];
    const picked: Fact[] = [];
    while (picked.length < perDoc && facts.length > 0) picked.push(facts.splice(r.int(0, facts.length - 1), 1)[0]);
    return picked.map((f, n) => ({ id: `${d.path.replace(/\.\w+$/, "")}-${n}`, lang: d.lang, query: f.question, answer: f.answer, doc: d.path, evidence: f.evidence }));
  });
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const docs = corpus(opts);
  const folder = join(opts.out, "docs");
  rmSync(folder, { recursive: true, force: true });
  for (const d of docs) {
    const path = join(folder, d.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, d.format === "pdf" ? await renderPdf(d) : render(d));
  }
  const queries = labelledQueries(docs);
  writeFileSync(join(opts.out, "queries.jsonl"), queries.map((q) => JSON.stringify(q)).join("\n") + "\n");
  // The environment's tasks: every 8th labelled question, with its reference answer and source.
  const tasks = queries.filter((_, i) => i % 8 === 0).map((q) => ({ id: q.id.replace(/[^a-z0-9-]+/g, "-"), inputs: { question: q.query, source: q.doc }, answer: q.answer }));
  writeFileSync(join(opts.out, "tasks.jsonl"), tasks.map((t) => JSON.stringify(t)).join("\n") + "\n");
  if (opts.index) await saveIndex(buildIndex(chunkDocuments(await readDocuments(folder))), join(opts.out, "search-index.json"));
  console.log(`${docs.length} documents in ${folder}, ${queries.length} labelled queries, ${tasks.length} tasks`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
