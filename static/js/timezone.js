// The teacher's time zone, as the browser knows it, kept in the cg_tz cookie so the
// server renders every time in it (app/facilitator/clock.py validates the name).
// On the first visit the page came in UTC: its <time> elements and report links are
// put in the zone here, and every later page comes from the server already right.
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const stored = (document.cookie.match(/(?:^|;\s*)cg_tz=([^;]*)/) || [])[1];

if (zone && stored !== zone) {
  // An IANA name has only letters, digits and / _ + -: a cookie takes it as it is.
  document.cookie = `cg_tz=${zone}; path=/; max-age=31536000; SameSite=Lax`;
  const format = new Intl.DateTimeFormat(undefined, {
    weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23",
  });
  for (const time of document.querySelectorAll("time[datetime]")) {
    time.textContent = format.format(new Date(time.getAttribute("datetime")));
  }
  for (const link of document.querySelectorAll("a[data-tz-link]")) {
    const url = new URL(link.href);
    url.searchParams.set("tz", zone);
    link.href = url.toString();
  }
  for (const form of document.querySelectorAll("form[data-tz-form]")) {
    let field = form.querySelector('input[name="tz"]');
    if (!field) {
      field = Object.assign(document.createElement("input"), { type: "hidden", name: "tz" });
      form.append(field);
    }
    field.value = zone;
  }
}
