import { Link } from 'react-router-dom';
import { usePageMeta } from './usePageMeta';

const values = [
  { name: 'Innovation', text: 'Beat detection, shot analysis and automatic edit planning do the tedious part of editing.' },
  { name: 'Community', text: 'Creators share their reels to the showcase, and the best of them inspire the next ones.' },
  {
    name: 'Excellence',
    text: 'Every cut lands on a frame, every reel is rendered the same way twice, and nothing is charged for a failed job.',
  },
  { name: 'Passion', text: 'We make the tool we wanted for our own footage: fast, honest about cost, and fun to use.' },
];

const different = [
  'Cuts follow the music: beats and bar lines are found in your track, and each segment is fitted to them.',
  'It watches your footage: black, frozen and blurred stretches are skipped, and each clip shows its best moment.',
  'One price formula, shown before you generate, and the same one used for the charge.',
  'Your files stay yours: uploads nobody used are deleted after a day, and deleting a reel deletes its video.',
];

const roles = [
  { role: 'Engineering', text: 'builds the editor, the render engine and the services that run them.' },
  { role: 'Design', text: 'shapes how a reel is made, from upload to download, on any screen.' },
  { role: 'Operations', text: 'keeps rendering fast and reliable and watches every job to its end.' },
  { role: 'Support', text: 'answers every message sent from the contact page.' },
];

const timeline = [
  { when: 'The idea', text: 'Editing a highlight reel by hand takes hours; the beat and the best shots can be found automatically.' },
  { when: 'The engine', text: 'Beat-synced planning, clip analysis and an ffmpeg renderer that works the same on a laptop and a cluster.' },
  { when: 'The product', text: 'Accounts, credits, live progress, My Reels and a stock library, on the web.' },
  { when: 'Today', text: 'A public showcase of reels made with Reelsmith, and more ways to share them.' },
];

/** /about: mission, values, what is different, who does what (roles, not invented people), the story so far. */
export function AboutPage() {
  usePageMeta('About Us', 'Why Reelsmith exists, what it does differently, and the values and roles behind it.');
  return (
    <section className="page public">
      <h1>About Us</h1>
      <h2>Our mission</h2>
      <p className="lead">Turn anyone's clips and music into a reel worth watching, in minutes rather than hours.</p>
      <h2>Our values</h2>
      <div className="value-grid">
        {values.map((v) => (
          <div key={v.name} className="card">
            <h3>{v.name}</h3>
            <p>{v.text}</p>
          </div>
        ))}
      </div>
      <h2>What Reelsmith does differently</h2>
      <ul className="tips">
        {different.map((d) => (
          <li key={d}>{d}</li>
        ))}
      </ul>
      <h2>Who does what</h2>
      <ul className="roles">
        {roles.map((r) => (
          <li key={r.role}>
            <strong>{r.role}</strong> {r.text}
          </li>
        ))}
      </ul>
      <h2>How we got here</h2>
      <ol className="timeline">
        {timeline.map((t) => (
          <li key={t.when}>
            <strong>{t.when}</strong>
            <p>{t.text}</p>
          </li>
        ))}
      </ol>
      <p className="center">
        <Link to="/" className="btn primary">
          Start Creating
        </Link>{' '}
        <Link to="/contact" className="btn">
          Get in touch
        </Link>
      </p>
    </section>
  );
}
